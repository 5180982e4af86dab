import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** One compiler error: its file's name as given, its line (1-based), and its message, flattened. */
export interface TypeError {
  file: string;
  line: number;
  message: string;
}

const clientRoot = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Type-checks programs written against the client as an integrator writes them (`import … from
 * "@chain-intents/client"`, strict ESM), with the compiler's API: the files are written to a temp
 * folder inside the package, where the import resolves to the package itself (its sources), and
 * the errors of those files are returned.
 */
export function typecheck(files: Record<string, string>): TypeError[] {
  const dir = mkdtempSync(join(clientRoot, ".typecheck-"));
  try {
    const names = Object.keys(files).map((name) => {
      const path = join(dir, name);
      writeFileSync(path, files[name]!);
      return path;
    });
    const program = ts.createProgram(names, {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2023,
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      customConditions: ["@platform/source"],
      skipLibCheck: true,
      types: ["node"],
    });
    return names.flatMap((path, index) =>
      ts.getPreEmitDiagnostics(program, program.getSourceFile(path)).map((diagnostic) => ({
        file: Object.keys(files)[index]!,
        line:
          diagnostic.file && diagnostic.start !== undefined
            ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1
            : 0,
        message: ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"),
      })),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
