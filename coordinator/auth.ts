/**
 * Bearer-token checks shared by the admin HTTP API and the gRPC service. The comparison takes the same
 * time wherever the first difference is, so response times do not reveal a prefix of the token.
 */
export function tokenMatches(given: string, expected: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i] ?? 0) ^ b[i]!;
  return diff === 0;
}
