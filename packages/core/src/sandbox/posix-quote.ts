/**
 * Quotes one argument for a POSIX shell (`sh`, `bash`, `dash`, `zsh`): the whole argument in
 * single quotes, each `'` written as `'\''`. Nothing inside single quotes is special — no
 * expansion, substitution, globbing, history or escape — so the shell passes the argument on
 * byte for byte. (The `shell-quote` package was not used: its types augment `Array#join`
 * globally, and its output depends on backslash escapes instead.)
 */
export function quoteShellArg(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** An argv as one POSIX shell command line (each argument quoted by {@link quoteShellArg}). */
export function quoteShellCommand(argv: readonly string[]): string {
  return argv.map(quoteShellArg).join(' ');
}
