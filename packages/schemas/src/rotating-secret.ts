/**
 * A secret and, in a rotation window, the one it replaces (`<NAME>_PREVIOUS`; both accepted meanwhile). A
 * previous one without a current one is refused: it would be the only one. `noun` names what the operator
 * sets (token, key) in the refusal.
 */
export function rotatingSecret<Name extends string>(
  env: { [K in Name | `${Name}_PREVIOUS`]?: string | undefined },
  name: Name,
  noun: string,
): { current: string | undefined; previous: string | undefined } {
  const current = env[name];
  const previous = env[`${name}_PREVIOUS`];
  if (previous && !current)
    throw new Error(
      `Invalid configuration: ${name}_PREVIOUS is set but ${name} is not; set ${name} to the new ${noun}`,
    );
  return { current, previous };
}
