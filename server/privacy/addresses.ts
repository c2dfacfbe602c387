// No raw client address in any page or public API: text that may carry one
// (a ping diagnostic) has addresses replaced before it leaves the server.

const IPV4 = /\b(?:\d{1,3}\.){3}\d{1,3}\b/g;
/** Two or more colons between hex groups: IPv6 in any notation (a clock time like 12:30:45 too, harmlessly). */
const IPV6 = /(?<![\w:.])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:%\w+)?/g;

export function redactAddresses(text: string): string {
  return text.replace(IPV4, "<address>").replace(IPV6, "<address>");
}
