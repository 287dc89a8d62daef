/**
 * The WHERE of a filtered list, built from optional conditions: each `?` becomes the next numbered parameter, so
 * values never enter the SQL text.
 */
export class WhereClause {
  readonly params: unknown[] = [];

  constructor(private readonly conditions: string[] = []) {}

  /** Adds a condition whose one `?` stands for `value`. */
  add(condition: string, value: unknown): this {
    this.conditions.push(condition.replace('?', this.param(value)));
    return this;
  }

  /** Adds a condition that takes no value. */
  require(condition: string): this {
    this.conditions.push(condition);
    return this;
  }

  /** Adds `value` as the next parameter and answers its placeholder (`$n`). */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  sql(): string {
    return this.conditions.length > 0 ? `WHERE ${this.conditions.join(' AND ')}` : '';
  }
}
