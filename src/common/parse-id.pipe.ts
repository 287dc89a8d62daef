import { BadRequestException, Injectable, type PipeTransform } from '@nestjs/common';

const MAX_BIGINT = 9223372036854775807n;

/** A bigint row id from the path, kept as its decimal string; 400 naming the parameter otherwise. */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (typeof value !== 'string' || !/^\d{1,19}$/.test(value) || BigInt(value) < 1n || BigInt(value) > MAX_BIGINT) {
      throw new BadRequestException({ statusCode: 400, message: 'id must be a positive integer', error: 'Bad Request' });
    }
    return BigInt(value).toString();
  }
}
