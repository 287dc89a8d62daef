import { applyDecorators, BadRequestException, type Type as ClassType } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, MaxLength, Min } from 'class-validator';

export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 500;

/** The `limit` and `cursor` of every `/api` list; list query DTOs extend it. */
export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT, description: 'Items per page.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: `limit must be an integer between 1 and ${MAX_PAGE_LIMIT}` })
  @Min(1, { message: `limit must be an integer between 1 and ${MAX_PAGE_LIMIT}` })
  @Max(MAX_PAGE_LIMIT, { message: `limit must be an integer between 1 and ${MAX_PAGE_LIMIT}` })
  limit?: number;

  /** The `next_cursor` of the previous page. */
  @IsOptional()
  @MaxLength(200, { message: 'cursor is not a cursor this API gave out' })
  cursor?: string;
}

/** What every `/api` list answers. */
export interface PageOf<T> {
  items: T[];
  next_cursor: string | null;
}

/** The OpenAPI answer of a list: `{ items: View[], next_cursor }` (the console's types are made from it). */
export function ApiPageResponse(view: ClassType<unknown>, description?: string): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(view),
    ApiOkResponse({
      description,
      schema: {
        type: 'object',
        required: ['items', 'next_cursor'],
        properties: {
          items: { type: 'array', items: { $ref: getSchemaPath(view) } },
          next_cursor: { type: 'string', nullable: true, description: 'The `cursor` of the next page; null on the last.' },
        },
      },
    }),
  );
}

/** The OpenAPI answer of a list that is not paged: `{ items: View[] }`. */
export function ApiItemsResponse(view: ClassType<unknown>, description?: string): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(view),
    ApiOkResponse({
      description,
      schema: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: { $ref: getSchemaPath(view) } } } },
    }),
  );
}

export function pageLimit(query: PageQueryDto): number {
  return query.limit ?? DEFAULT_PAGE_LIMIT;
}

/**
 * The cursor of a list ordered by a bigint id: the id of the last item of the previous page, as given out in
 * `next_cursor`. Anything else is a 400 naming the field.
 */
export function idCursor(query: PageQueryDto): string | undefined {
  if (query.cursor === undefined || query.cursor === '') return undefined;
  if (!/^\d{1,19}$/.test(query.cursor))
    throw new BadRequestException({ statusCode: 400, message: 'cursor is not a cursor this API gave out', error: 'Bad Request' });
  return query.cursor;
}

/**
 * Cuts rows fetched with `limit + 1` into a page: the extra row only says that there is a next page, whose cursor
 * is the key of the last item kept.
 */
export function toPage<R, T>(rows: R[], limit: number, keyOf: (row: R) => string, view: (row: R) => T): PageOf<T> {
  const kept = rows.slice(0, limit);
  return { items: kept.map(view), next_cursor: rows.length > limit && kept.length > 0 ? keyOf(kept[kept.length - 1]) : null };
}

/** Wraps items a service already paged (with its own next cursor). */
export function pageOf<R, T>(items: R[], nextCursor: string | null, view: (row: R) => T): PageOf<T> {
  return { items: items.map(view), next_cursor: nextCursor };
}
