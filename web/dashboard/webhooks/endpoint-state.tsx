// An endpoint's state as a badge: active, inactive (turned off by a person), or disabled by the
// service after failing deliveries, with its reason.
import type { Webhook } from "../../../client";
import { Badge, Time } from "../ui/format";

export function EndpointState({ webhook }: { webhook: Webhook }) {
  if (webhook.active) return <Badge value="active" />;
  return (
    <>
      <Badge value="draft">inactive</Badge>
      {webhook.disabled_reason ? (
        <div class="hint">
          Disabled by the service <Time iso={webhook.disabled_at} />: {webhook.disabled_reason}
        </div>
      ) : null}
    </>
  );
}
