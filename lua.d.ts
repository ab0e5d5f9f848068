// Lua scripts are imported as text (`with { type: "text" }`), so a compiled binary carries them.
declare module "*.lua" {
  const source: string;
  export default source;
}
