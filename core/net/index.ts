/** Network addresses as text: `host:port` parsed and written one way (IPv6 in brackets). */
export { formatHost, formatHostPort, parseHostPort, type HostPort } from "./host-port.ts";
