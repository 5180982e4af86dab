import type { ServiceDefinition } from "@grpc/grpc-js";

const json = {
  serialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as unknown,
};

/**
 * A service of unary methods with JSON on the wire, by method name and path: what this library's
 * tests and benches serve, so they need no generated code (the generated services are exercised in
 * libs/proto and the services' own tests).
 */
export function jsonUnaryService(paths: Record<string, string>): ServiceDefinition {
  const definition: Record<string, ServiceDefinition[string]> = {};
  for (const [method, path] of Object.entries(paths)) {
    definition[method] = {
      path,
      requestStream: false,
      responseStream: false,
      requestSerialize: json.serialize,
      requestDeserialize: json.deserialize,
      responseSerialize: json.serialize,
      responseDeserialize: json.deserialize,
    };
  }
  return definition;
}
