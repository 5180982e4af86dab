import { readFile } from "node:fs/promises";
import { z } from "zod";

/** The document a T&C version refers to. */
export interface TcDocument {
  documentUrl: string;
  /** SHA-256 of the document, lowercase hex. */
  documentSha256: string;
}

/** Document metadata by T&C version. */
export type TcVersions = ReadonlyMap<number, TcDocument>;

const documentSchema = z.strictObject({
  documentUrl: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
  documentSha256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, { error: "must be 64 hex digits" })
    .transform((value) => value.toLowerCase()),
});

const versionsSchema = z.record(z.string(), documentSchema).superRefine((versions, context) => {
  for (const key of Object.keys(versions)) {
    if (!/^[1-9][0-9]{0,8}$/.test(key))
      context.addIssue({ code: "custom", path: [key], message: "is not a T&C version (a positive integer)" });
  }
});

/** Parses the JSON text of TC_VERSIONS_FILE; throws with the failing path. */
export function parseTcVersions(text: string): TcVersions {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`is not JSON: ${(error as Error).message}`, { cause: error });
  }
  const result = versionsSchema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const path = issue.path.length === 0 ? "(top level)" : issue.path.map(String).join(".");
    throw new Error(`${path}: ${issue.message}`);
  }
  return new Map(Object.entries(result.data).map(([version, document]) => [Number(version), document]));
}

/** Reads TC_VERSIONS_FILE; no file configured means no document metadata for any version. */
export async function loadTcVersions(path: string | undefined): Promise<TcVersions> {
  if (path === undefined) return new Map();
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new Error(`${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`, { cause: error });
  }
  try {
    return parseTcVersions(text);
  } catch (error) {
    throw new Error(`${path}: ${(error as Error).message}`, { cause: error });
  }
}
