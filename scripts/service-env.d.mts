// Types of scripts/service-env.mjs (plain JavaScript: the Node launcher imports it too).
export declare const SERVICE_ENV: Readonly<Record<string, string>>;
export declare function withServiceEnv<T extends Record<string, string | undefined>>(env: T): T & Record<string, string | undefined>;
