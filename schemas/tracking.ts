// TypeBox schemas of the public open and click tracking routes (/track/open/:token, /track/click/:token).
import { t } from "elysia";

export const TrackingTokenParams = t.Object({
  token: t.String({ description: "signed token (notification and link index) from the email; not guessable" }),
});
