/**
 * Addressing: `addressOf` gives a host's region and partition from the region rules and P, `groupByOwner`
 * groups URLs by that address for publishing to their owners, and `hostKeyOfArgument` reads the host an
 * operator names. Every process addresses work through these, so all of them agree on where a host lives.
 */
export { addressOf, groupByOwner, hostPartition, type AddressScheme, type Address, type OwnerGroup } from "./address.ts";
export { hostKeyOfArgument, MAX_HOST_LENGTH } from "./host-argument.ts";
