/**
 * What an operator does about the mirrors on the hub's own machine: a local mirror that lacks the file (an air-gapped
 * hub has no other source) needs a bundle that holds it; a mirror that speaks plain http is not offered to a client
 * that reached the hub over https.
 */
export function besideNotes(lacking: readonly string[], plainHttp: readonly string[] = []): string {
  const many = lacking.length > 1;
  const missing = lacking.length
    ? ` The local mirror${many ? 's' : ''} ${lacking.join(', ')} ${many ? 'do' : 'does'} not hold its bytes (never brought in, or moved aside as damaged by hub mirror verify): import a bundle that holds them (hub bundle import).`
    : '';
  const plain = plainHttp.length
    ? ` ${plainHttp.join(', ')} serve${plainHttp.length > 1 ? '' : 's'} plain http beside this hub, which was reached over https: serve that mirror through your TLS proxy and set its https URL as the source's url.`
    : '';
  return missing + plain;
}
