import { runCli } from "./runCli.js";

// The admin CLI (`pnpm --silent cli …`): API keys over auth's gRPC, signing-key files locally.
// Never a public route; whoever can reach auth's gRPC port is an administrator.
process.exitCode = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
});
