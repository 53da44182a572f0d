/**
 * The one place that imports undici. Under Bun the bare specifier `'undici'` resolves to Bun's
 * built-in stand-in, whose Agent and Pool are empty classes that silently ignore timeouts, custom
 * connectors and connection limits; a stalled server then hangs a request forever. Importing the
 * package's entry file by path, `'undici/index.js'`, loads the real npm package on Bun and resolves
 * the same way under Node and Deno (undici has no `exports` map, so the subpath is allowed
 * everywhere). {@link assertRealUndici} checks at construction that the real one was loaded.
 */
import { Agent, buildConnector, Client, Dispatcher, Pool, ProxyAgent } from "undici/index.js";

export { Agent, buildConnector, Client, Dispatcher, Pool, ProxyAgent };

/**
 * Throws unless `AgentClass` is the real undici Agent: the stand-in's instances lack `compose`.
 * The parameter exists so a test can show that the bare specifier would be rejected.
 */
export function assertRealUndici(AgentClass: new () => object = Agent): void {
  const probe = new AgentClass() as { compose?: unknown; destroy?: () => Promise<void> };
  const real = typeof probe.compose === "function";
  // The probe owns no sockets, but destroying it keeps the lifecycle honest.
  if (typeof probe.destroy === "function") probe.destroy().catch(() => {});
  if (!real) {
    throw new Error(
      "engine/fetch/http: the loaded undici is not the npm package (Agent has no compose()); " +
        "import it as 'undici/index.js', never as 'undici', so Bun does not substitute its built-in stand-in",
    );
  }
}
