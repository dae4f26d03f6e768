import { BlockList, isIP } from 'node:net';

/**
 * The addresses a terminal may send from (`allowFrom`: addresses and CIDR networks, already
 * checked by the config), as a BlockList; null when any address may.
 */
export function allowList(entries: readonly string[] | undefined): BlockList | null {
  if (!entries) return null;
  const list = new BlockList();
  for (const e of entries) {
    const [addr, prefix] = e.split('/') as [string, string | undefined];
    const type = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, Number(prefix), type);
  }
  return list;
}

/** Whether `address` is within an allowFrom list (null: any address is). */
export function allowed(list: BlockList | null, address: string): boolean {
  if (list === null) return true;
  const family = isIP(address);
  if (family === 0) return false;
  return list.check(address, family === 6 ? 'ipv6' : 'ipv4');
}
