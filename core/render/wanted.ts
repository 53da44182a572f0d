/** Whether a policy renders any page at all (`--render` or a rule other than never): else no browser is needed. */
import { RenderRules } from "./rules.ts";

export function renderingWanted(policy: { render: "never" | "auto" | "always"; renderRules: readonly string[] }): boolean {
  return new RenderRules(policy.render, policy.renderRules).mayRender;
}
