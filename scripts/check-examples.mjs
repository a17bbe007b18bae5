// Every TSDoc `@example` block of the packages' source is type-checked against the real API, so
// examples that no longer compile (a renamed option, a wrong argument) fail `pnpm test`.
//
// Each block becomes a module that imports every name it uses from the public entry points
// (the package it documents first). Names no entry exports are the example's placeholders
// (`writeNote`, `model`, `servers`…): "cannot find name" is allowed for them, and only for them;
// every other diagnostic fails the check.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const repo = fileURLToPath(new URL('..', import.meta.url));
const packagesDir = path.join(repo, 'packages');

/** Public entry points: specifier → exported names (from the source, via the checker). */
function publicEntries() {
  const entries = [];
  for (const name of readdirSync(packagesDir)) {
    const dir = path.join(packagesDir, name);
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      if (typeof target !== 'object') continue;
      const source =
        target['@ksadk/source'] ??
        target.default.replace(/^\.\/dist\//, './src/').replace(/\.js$/, '.ts');
      entries.push({
        pkg: name,
        specifier: `${pkg.name}${subpath.slice(1)}`,
        file: path.join(dir, source),
      });
    }
  }
  const program = ts.createProgram(
    entries.map((entry) => entry.file),
    options(),
  );
  const checker = program.getTypeChecker();
  for (const entry of entries) {
    const symbol = checker.getSymbolAtLocation(program.getSourceFile(entry.file));
    entry.names = new Set(symbol ? checker.getExportsOfModule(symbol).map((s) => s.name) : []);
  }
  return entries;
}

function options() {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(packagesDir, 'core', 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  return {
    ...config.options,
    noEmit: true,
    noUnusedLocals: false,
    noUnusedParameters: false,
    // Examples import types and values alike by name.
    verbatimModuleSyntax: false,
    isolatedModules: false,
  };
}

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(full);
    return name.endsWith('.ts') && !name.includes('.test') ? [full] : [];
  });
}

/** The `@example` code blocks of a file, with their line numbers. */
function examplesOf(file) {
  const text = readFileSync(file, 'utf8');
  const out = [];
  for (const match of text.matchAll(/@example\s*\n\s*\*\s*```ts\n([\s\S]*?)\n\s*\*\s*```/g)) {
    const code = match[1]
      .split('\n')
      .map((line) => line.replace(/^\s*\* ?/, ''))
      .join('\n');
    out.push({ code, line: text.slice(0, match.index).split('\n').length + 1 });
  }
  return out;
}

const entries = publicEntries();
const blocks = [];
for (const pkg of readdirSync(packagesDir)) {
  for (const file of sourceFiles(path.join(packagesDir, pkg, 'src'))) {
    for (const example of examplesOf(file)) blocks.push({ pkg, file, ...example });
  }
}

// One virtual module per example, next to the package it documents (so its dependencies resolve).
const virtual = new Map();
for (const [index, block] of blocks.entries()) {
  const identifiers = new Set(block.code.match(/\b[A-Za-z_$][\w$]*\b/g) ?? []);
  const imports = new Map();
  const ordered = [...entries].sort(
    (a, b) => (a.pkg === block.pkg ? -1 : 0) - (b.pkg === block.pkg ? -1 : 0),
  );
  for (const name of identifiers) {
    const entry = ordered.find((candidate) => candidate.names.has(name));
    if (!entry) continue;
    if (!imports.has(entry.specifier)) imports.set(entry.specifier, []);
    imports.get(entry.specifier).push(name);
  }
  const header = [...imports]
    .map(([specifier, names]) => `import { ${names.join(', ')} } from '${specifier}';`)
    .join('\n');
  const file = path.join(packagesDir, block.pkg, 'src', `__example_${index}.ts`);
  const lines = header ? header.split('\n').length : 0;
  virtual.set(file, { text: `${header}\n${block.code}\nexport {};\n`, block, offset: lines + 1 });
}

const compilerOptions = options();
const host = ts.createCompilerHost(compilerOptions);
const read = host.readFile.bind(host);
const exists = host.fileExists.bind(host);
host.readFile = (name) => virtual.get(path.resolve(name))?.text ?? read(name);
host.fileExists = (name) => virtual.has(path.resolve(name)) || exists(name);
const getSourceFile = host.getSourceFile.bind(host);
host.getSourceFile = (name, language) => {
  const entry = virtual.get(path.resolve(name));
  return entry
    ? ts.createSourceFile(name, entry.text, language, true)
    : getSourceFile(name, language);
};
const program = ts.createProgram([...virtual.keys()], compilerOptions, host);

// "Cannot find name" and "no value for the shorthand property" (placeholders) and "implicitly
// any" (their uses) are allowed; nothing else.
const ALLOWED = new Set([2304, 2552, 7005, 7006, 7034, 2582, 18004]);
let failures = 0;
for (const [file, { block, offset }] of virtual) {
  const diagnostics = [
    ...program.getSyntacticDiagnostics(program.getSourceFile(file)),
    ...program.getSemanticDiagnostics(program.getSourceFile(file)),
  ].filter((diagnostic) => !ALLOWED.has(diagnostic.code));
  for (const diagnostic of diagnostics) {
    failures += 1;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    console.error(
      `${path.relative(repo, block.file)}:${block.line + line - offset}: @example does not compile: ${message}`,
    );
  }
}
if (failures > 0) {
  console.error(`${failures} problem(s) in ${blocks.length} @example blocks.`);
  process.exit(1);
}
console.log(`${blocks.length} @example blocks compile.`);
