/** LEAF_TRUSTED_PROXIES: the load balancers whose X-Forwarded-For (and X-Forwarded-Proto) is believed. */
import net from 'node:net';

export const TRUSTED_PROXIES_GRAMMAR = 'a comma list of IP addresses or CIDR ranges (10.0.0.5, 10.0.0.0/8, ::1)';

/** The entries of LEAF_TRUSTED_PROXIES, checked: each an address or a range; the problem with the first bad one. */
export function parseTrustedProxies(value: string): string[] | { problem: string } {
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/');
    const family = net.isIP(address);
    const max = family === 4 ? 32 : 128;
    if (
      family === 0 ||
      extra !== undefined ||
      (prefix !== undefined && !(/^\d+$/.test(prefix) && Number(prefix) <= max))
    ) {
      return { problem: `"${entry}" is neither` };
    }
  }
  return entries;
}

export interface ProxyMatcher {
  trusts(address: string): boolean;
}

/** The checked entries as one matcher (IPv4 addresses match as such whether or not written as ::ffff:a.b.c.d). */
export function proxyMatcher(entries: readonly string[]): ProxyMatcher {
  const list = new net.BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const type = net.isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return {
    trusts(address) {
      const family = net.isIP(address);
      return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}
