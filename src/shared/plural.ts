/** `1 resource`, `2 resources`, `1,234 proxies`: the count with the noun that agrees with it. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}
