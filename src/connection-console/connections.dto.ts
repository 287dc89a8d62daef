import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsObject, IsOptional, IsString, IsUrl, Matches, MaxLength, MinLength } from 'class-validator';

const httpUrl = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/** A refusal's stable code in the 400's `errors` (the console picks its words by it). */
const coded = (code: string, message?: string) => ({ ...(message ? { message } : {}), context: { code } });
/** A length bound's options: its code and the bound itself in `errors`. */
const tooLong = (limit: number, each = false) => ({ each, context: { code: 'too_long', limit } });

export class ServiceConnectionDto {
  @ApiProperty({ example: 'https://api.example.com/v1', description: "The service's API address; ends in /v1." })
  @IsUrl(httpUrl, coded('not_http_url', 'base_url must be an http(s) URL'))
  @Matches(/\/v1\/?$/, coded('not_api_v1', 'base_url must end in /v1'))
  @MaxLength(2000, tooLong(2000))
  base_url: string;

  @ApiProperty({ description: "The service's API token (sent as Bearer). Never returned; only its last 4 characters." })
  @IsString()
  @MinLength(1, coded('required', 'token is required'))
  @MaxLength(4096, tooLong(4096))
  token: string;
}

export class AppointmentCrmConnectionDto {
  @ApiProperty({ example: 'https://crm.example.com/api' })
  @IsUrl(httpUrl, coded('not_http_url', 'base_url must be an http(s) URL'))
  @MaxLength(2000, tooLong(2000))
  base_url: string;

  @ApiProperty({ description: 'The bearer key of the appointment CRM. Never returned; only its last 4 characters.' })
  @IsString()
  @MinLength(1, coded('required', 'api_key is required'))
  @MaxLength(4096, tooLong(4096))
  api_key: string;
}

export class RecordCrmConnectionDto {
  @ApiProperty({ example: 'https://accounts.zoho.eu', description: "The accounts server of the Zoho account's data centre." })
  @IsUrl(httpUrl, coded('not_http_url', 'accounts_url must be an http(s) URL'))
  @MaxLength(2000, tooLong(2000))
  accounts_url: string;

  @ApiProperty({ description: "The Client ID of a server-based client in Zoho's API console." })
  @IsString()
  @MinLength(1, coded('required', 'client_id is required'))
  @MaxLength(500, tooLong(500))
  client_id: string;

  @ApiPropertyOptional({ description: 'Its Client Secret; may be left out to reconnect with the client already saved (same client_id).' })
  @IsOptional()
  @IsString()
  @MinLength(1, coded('required'))
  @MaxLength(500, tooLong(500))
  client_secret?: string;
}

const secretsList = () => [
  IsArray(),
  ArrayMaxSize(5),
  IsString({ each: true }),
  MaxLength(500, tooLong(500, true)),
  // A new secret of 16 characters or more, or `…abcd` (U+2026 and the last 4 characters): keep the current one ending so.
  Matches(/^(?:….{4}|.{16,})$/su, { each: true, ...coded('secret_too_short', 'each secret must be at least 16 characters (or …abcd to keep a current one)') }),
];
const applyAll =
  (decorators: PropertyDecorator[]): PropertyDecorator =>
  (target, key) =>
    decorators.forEach((decorate) => decorate(target, key));

export class WebhooksConnectionDto {
  @ApiProperty({ type: [String], description: "The events webhook's secrets, newest first (two during a rotation); `…abcd` keeps a current one." })
  @applyAll(secretsList())
  events: string[];

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @applyAll(secretsList())
  appointment_prompt?: string[];

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @applyAll(secretsList())
  record_prompt?: string[];
}

export class SalesforceConnectionDto {
  @ApiPropertyOptional({
    example: 'https://login.salesforce.com',
    description: 'Where to sign in: login.salesforce.com, test.salesforce.com (sandbox) or the org’s My Domain.',
  })
  @IsOptional()
  @IsUrl(httpUrl, coded('not_http_url', 'login_url must be an http(s) URL'))
  @MaxLength(2000, tooLong(2000))
  login_url?: string;

  @ApiProperty({ description: "The Connected App's Consumer Key." })
  @IsString()
  @MinLength(1, coded('required', 'client_id is required'))
  @MaxLength(500, tooLong(500))
  client_id: string;

  @ApiPropertyOptional({ description: 'Its Consumer Secret; may be left out to reconnect with the app already saved (same client_id and login_url).' })
  @IsOptional()
  @IsString()
  @MinLength(1, coded('required'))
  @MaxLength(500, tooLong(500))
  client_secret?: string;

  @ApiPropertyOptional({ enum: ['improveit360-classic', 'improveit360-lightning'], default: 'improveit360-classic' })
  @IsOptional()
  @IsIn(['improveit360-classic', 'improveit360-lightning'], coded('isIn', 'preset must be improveit360-classic or improveit360-lightning'))
  preset?: string;

  @ApiPropertyOptional({ enum: ['service', 'crm-sync'], default: 'service', description: 'Who pushes files, sales and Sold to the org.' })
  @IsOptional()
  @IsIn(['service', 'crm-sync'], coded('isIn', 'pushes must be service or crm-sync'))
  pushes?: string;
}

export class SalesforceNamesDto {
  @ApiPropertyOptional({
    description: 'Names that differ from the preset\'s, by need (`{ "appointment_job_number": "Job_No__c" }`); `\'\'` leaves an optional need unused.',
    type: 'object',
    additionalProperties: { type: 'string' },
  })
  @IsOptional()
  @IsObject(coded('isObject', 'names must be an object'))
  names?: Record<string, string>;

  @ApiPropertyOptional({ description: 'The value of the result pick list that means Sold.' })
  @IsOptional()
  @IsString()
  @MinLength(1, coded('required'))
  @MaxLength(255, tooLong(255))
  sold_value?: string;

  @ApiPropertyOptional({ enum: ['improveit360-classic', 'improveit360-lightning'] })
  @IsOptional()
  @IsIn(['improveit360-classic', 'improveit360-lightning'], coded('isIn', 'preset must be improveit360-classic or improveit360-lightning'))
  preset?: string;

  @ApiPropertyOptional({ enum: ['service', 'crm-sync'] })
  @IsOptional()
  @IsIn(['service', 'crm-sync'], coded('isIn', 'pushes must be service or crm-sync'))
  pushes?: string;
}
