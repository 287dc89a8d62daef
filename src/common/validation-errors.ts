import { BadRequestException, HttpException, ValidationPipe, type ValidationError } from '@nestjs/common';

/**
 * One refused input, for machines: `field` is its path (`items.0.name`), `code` a stable name (an explicit
 * `context: { code }` on the decorator, else the class-validator constraint, e.g. `isUrl`, `maxLength`,
 * `whitelistValidation` for a field that should not be there), `message` the same text as in the answer's `message`.
 * `limit` is the bound a length rule names, when its decorator gives it in `context`.
 */
export interface FieldError {
  field: string;
  code: string;
  message: string;
  limit?: number;
}

interface CodeContext {
  code?: string;
  limit?: number;
}

/** Every constraint of every (nested) property, in class-validator's order; at most `max` of them. */
export function fieldErrors(errors: ValidationError[], max: number, parent = '', out: FieldError[] = []): FieldError[] {
  for (const error of errors) {
    if (out.length >= max) break;
    const field = parent ? `${parent}.${error.property}` : error.property;
    for (const [constraint, text] of Object.entries(error.constraints ?? {})) {
      if (out.length >= max) break;
      const context = (error.contexts?.[constraint] ?? {}) as CodeContext;
      // Nest prefixes a nested property's text with its parent's path; the entry says the same.
      const entry: FieldError = { field, code: context.code ?? constraint, message: parent ? `${parent}.${text}` : text };
      if (typeof context.limit === 'number') entry.limit = context.limit;
      out.push(entry);
    }
    fieldErrors(error.children ?? [], max, field, out);
  }
  return out;
}

/**
 * The app's ValidationPipe: the usual 400 (`message`: the texts, cut short as Nest cuts them; `error`) plus `errors`,
 * the same failures as {@link FieldError}s, so a client picks its words by code rather than by reading the texts.
 */
class CodedValidationPipe extends ValidationPipe {
  override createExceptionFactory(): (validationErrors?: ValidationError[]) => unknown {
    const plain = super.createExceptionFactory();
    return (validationErrors = []) => {
      const refused = plain(validationErrors);
      if (!(refused instanceof HttpException)) return refused;
      const body = refused.getResponse() as { message?: unknown; error?: string; statusCode?: number };
      const messages = Array.isArray(body.message) ? body.message : [];
      const errors = fieldErrors(validationErrors, messages.length);
      return new BadRequestException({ statusCode: refused.getStatus(), message: body.message, error: body.error, errors });
    };
  }
}

export function validationPipe(): ValidationPipe {
  return new CodedValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true });
}
