import type { AddressInfo } from 'node:net';

/**
 * The URL of what a server actually bound (from `server.address()`, never from the configuration): the
 * "listening on" lines print this, so `0.0.0.0` (every interface) reads as such and is not passed off as
 * loopback. An IPv6 address is bracketed.
 */
export function boundUrl({ address, port }: Pick<AddressInfo, 'address' | 'port'>, path = ''): string {
  const host = address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${port}${path}`;
}
