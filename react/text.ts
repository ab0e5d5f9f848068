// The words @nms/react's components show, in English and Portuguese (Brazil): any `pt` locale reads
// Portuguese, everything else English (the same rule as <nms-preferences> and the hosted center).

const EN = {
  notifications: "Notifications",
  unread: (n: number) => (n === 1 ? "1 unread" : `${n} unread`),
  unreadPrefix: "Unread: ",
  markAllRead: "Mark all as read",
  loading: "Loading…",
  empty: "No notifications yet.",
  inboxError: "This inbox could not be loaded.",
  tryAgain: "Try again",
  loadMore: "Load older notifications",
  reconnecting: "Reconnecting…",
  preferencesTitle: "Notification preferences",
  preferencesError: "Your preferences could not be loaded.",
  required: "Required",
  saved: "Saved",
  saving: "Saving…",
  notSaved: "Not saved",
  other: "Other",
  channels: { email: "Email", whatsapp: "WhatsApp", sms: "SMS", in_app: "In the app", push: "Push" } as Record<string, string>,
};

export type Text = typeof EN;

const PT_BR: Text = {
  notifications: "Notificações",
  unread: (n: number) => (n === 1 ? "1 não lida" : `${n} não lidas`),
  unreadPrefix: "Não lida: ",
  markAllRead: "Marcar todas como lidas",
  loading: "Carregando…",
  empty: "Nenhuma notificação ainda.",
  inboxError: "Não foi possível carregar as notificações.",
  tryAgain: "Tentar de novo",
  loadMore: "Carregar notificações anteriores",
  reconnecting: "Reconectando…",
  preferencesTitle: "Preferências de notificação",
  preferencesError: "Não foi possível carregar suas preferências.",
  required: "Obrigatória",
  saved: "Salvo",
  saving: "Salvando…",
  notSaved: "Não salvo",
  other: "Outras",
  channels: { email: "E-mail", whatsapp: "WhatsApp", sms: "SMS", in_app: "No aplicativo", push: "Notificação push" },
};

/** The texts for a BCP 47 tag or `pt_BR`-style locale. */
export function textFor(locale: string | undefined): Text {
  return (locale ?? "en").toLowerCase().startsWith("pt") ? PT_BR : EN;
}
