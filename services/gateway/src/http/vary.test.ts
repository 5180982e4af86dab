import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { appendVary } from "./vary.js";

const response = () => new ServerResponse(new IncomingMessage(new Socket()));

describe("appendVary", () => {
  it("adds to what is there, without duplicates whatever the case", () => {
    const answer = response();
    appendVary(answer, "Origin");
    appendVary(answer, "Accept", "origin");
    appendVary(answer, "Accept-Encoding");
    expect(answer.getHeader("vary")).toBe("Origin, Accept, Accept-Encoding");
  });

  it("leaves * alone", () => {
    const answer = response();
    answer.setHeader("vary", "*");
    appendVary(answer, "Accept");
    expect(answer.getHeader("vary")).toBe("*");
  });
});
