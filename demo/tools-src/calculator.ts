// calculate: a small arithmetic expression parser (recursive descent). No eval, no Function.
//   expression := term (("+" | "-") term)*
//   term       := unary (("*" | "/" | "%") unary)*
//   unary      := ("-" | "+") unary | power
//   power      := primary ("^" unary)?          right-associative: 2^3^2 = 2^9; -2^2 = -4
//   primary    := number | "(" expression ")"
//   number     := digits ["." digits] [("e" | "E") ["+" | "-"] digits]   (also ".5")
// "×" and "÷" are read as "*" and "/"; "**" as "^".
import type { ToolHandler } from "chat-runtime";

export interface CalculateArgs {
  expression: string;
}

export interface Calculation {
  expression: string;
  result: number;
}

/** A syntax or arithmetic error, with the 1-based column where it was found. */
export class CalculationError extends Error {
  override name = "CalculationError";
}

const MAX_LENGTH = 1000;
const MAX_DEPTH = 100;

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(private readonly src: string) {}

  parse(): number {
    this.skipSpace();
    if (this.pos >= this.src.length) throw new CalculationError("the expression is empty");
    const value = this.expression();
    this.skipSpace();
    if (this.pos < this.src.length) this.fail(`unexpected "${this.src[this.pos]}"`);
    return value;
  }

  private fail(message: string): never {
    throw new CalculationError(`${message} at column ${this.pos + 1}`);
  }

  private skipSpace(): void {
    while (this.pos < this.src.length && /\s/.test(this.src[this.pos]!)) this.pos++;
  }

  /** Consumes `op` (after spaces) if it is next. */
  private eat(op: string): boolean {
    this.skipSpace();
    if (this.src.startsWith(op, this.pos)) {
      this.pos += op.length;
      return true;
    }
    return false;
  }

  private expression(): number {
    let value = this.term();
    for (;;) {
      if (this.eat("+")) value = value + this.term();
      else if (this.eat("-")) value = value - this.term();
      else return value;
    }
  }

  private term(): number {
    let value = this.unary();
    for (;;) {
      if (this.eat("*") || this.eat("×")) {
        value = value * this.unary();
      } else if (this.eat("/") || this.eat("÷")) {
        const at = this.pos;
        const divisor = this.unary();
        if (divisor === 0) {
          this.pos = at;
          this.fail("division by zero");
        }
        value = value / divisor;
      } else if (this.eat("%")) {
        const at = this.pos;
        const divisor = this.unary();
        if (divisor === 0) {
          this.pos = at;
          this.fail("modulo by zero");
        }
        value = value % divisor;
      } else {
        return value;
      }
    }
  }

  private unary(): number {
    if (++this.depth > MAX_DEPTH) this.fail("the expression is nested too deeply");
    try {
      if (this.eat("-")) return -this.unary();
      if (this.eat("+")) return this.unary();
      return this.power();
    } finally {
      this.depth--;
    }
  }

  private power(): number {
    const base = this.primary();
    if (this.eat("^") || this.eat("**")) {
      const exponent = this.unary();
      return base ** exponent;
    }
    return base;
  }

  private primary(): number {
    this.skipSpace();
    if (this.eat("(")) {
      if (++this.depth > MAX_DEPTH) this.fail("the expression is nested too deeply");
      const value = this.expression();
      this.depth--;
      if (!this.eat(")")) this.fail('missing ")"');
      return value;
    }
    const match = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(this.src.slice(this.pos));
    if (!match) {
      if (this.pos >= this.src.length) this.fail("the expression ends too early");
      this.fail(`expected a number or "(" but found "${this.src[this.pos]}"`);
    }
    this.pos += match[0].length;
    return Number(match[0]);
  }
}

/** Evaluates an arithmetic expression: numbers, + - * / % ^, parentheses, unary minus. */
export function evaluate(expression: string): number {
  if (expression.length > MAX_LENGTH) throw new CalculationError(`the expression is longer than ${MAX_LENGTH} characters`);
  const value = new Parser(expression).parse();
  if (!Number.isFinite(value)) throw new CalculationError("the result is not a finite number");
  return value;
}

/** Rounds away binary noise (0.1+0.2 -> 0.3) without hiding real digits. */
function tidy(value: number): number {
  const rounded = Number(value.toPrecision(12));
  return Object.is(rounded, -0) ? 0 : rounded;
}

export const calculate: ToolHandler<CalculateArgs, Calculation> = ({ expression }) => {
  const text = String(expression ?? "");
  return { expression: text, result: tidy(evaluate(text)) };
};
