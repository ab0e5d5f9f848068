// Maps an actor key to its partition: FNV-1a (32 bit) over the key's UTF-8 bytes, mod P.
// Stable across processes, versions and languages, so every sender and host agrees.

const encoder = new TextEncoder();

export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Non-ASCII needs the UTF-8 bytes so the hash matches other implementations; rare, so rehash.
    if (c > 0x7f) return fnv1a32Bytes(encoder.encode(text));
    hash = Math.imul(hash ^ c, 0x01000193);
  }
  return hash >>> 0;
}

function fnv1a32Bytes(bytes: Uint8Array): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash >>> 0;
}

export function partitionOf(key: string, partitions: number): number {
  return fnv1a32(key) % partitions;
}
