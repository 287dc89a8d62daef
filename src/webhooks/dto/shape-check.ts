import { Type } from 'class-transformer';
import { getMetadataStorage, ValidateNested, ValidationTypes, type MetadataStorage, type ValidationArguments, type ValidationOptions } from 'class-validator';

type DtoClass = new () => object;
type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];
/** Whether a plain object (JSON as parsed) has a DTO's shape: the answer class-validator gives for its instance. */
export type ShapeCheck = (object: Record<string, unknown>) => boolean;

const nestedClasses = new Map<object | string, Map<string, () => DtoClass>>();

/**
 * A property holding a DTO (or an array of them): class-validator's `@ValidateNested()` and class-transformer's
 * `@Type()` in one, with the class recorded where `shapeCheck` can read it.
 */
export function Nested(dto: () => DtoClass, options?: ValidationOptions): PropertyDecorator {
  const validate = ValidateNested(options);
  const transform = Type(dto);
  return (target, property) => {
    validate(target, property);
    transform(target, property);
    const byProperty = nestedClasses.get(target.constructor) ?? new Map<string, () => DtoClass>();
    byProperty.set(String(property), dto);
    nestedClasses.set(target.constructor, byProperty);
  };
}

const compiled = new WeakMap<DtoClass, ShapeCheck>();

/**
 * class-validator's verdict on a DTO without class-transformer and the validation executor, which together cost
 * a webhook delivery more than its signature check. The check is built once per DTO from class-validator's own
 * metadata (the same decorators, the same constraint functions, the same inheritance), and walks a plain object as
 * `validateSync(plainToInstance(dto, object))` would, keeping only the yes or no; the messages of a refusal still
 * come from class-validator. Throws for a kind of validation it does not know, so a new decorator cannot slip by;
 * nested DTOs are checked as it is built, so building every DTO's check at start finds any such decorator then.
 */
export function shapeCheck(dto: DtoClass): ShapeCheck {
  const known = compiled.get(dto);
  if (known) return known;
  let properties: ShapeCheck[] = [];
  const check: ShapeCheck = (object) => properties.every((valid) => valid(object));
  compiled.set(dto, check); // before its properties, so a DTO nested in itself finds this check
  try {
    const storage = getMetadataStorage();
    const byProperty = storage.groupByPropertyName(storage.getTargetValidationMetadatas(dto, '', false, false));
    properties = Object.entries(byProperty).map(([property, metadatas]) => propertyCheck(dto, property, metadatas));
  } catch (err) {
    compiled.delete(dto);
    throw err;
  }
  return check;
}

function propertyCheck(dto: DtoClass, property: string, metadatas: ValidationMetadata[]): ShapeCheck {
  const conditions: Array<(object: object, value: unknown) => boolean> = [];
  const constraints: Array<(object: Record<string, unknown>, value: unknown) => boolean> = [];
  let nested: ShapeCheck | null = null;
  for (const metadata of metadatas) {
    switch (metadata.type) {
      case ValidationTypes.CONDITIONAL_VALIDATION:
        conditions.push(metadata.constraints[0]);
        break;
      case ValidationTypes.CUSTOM_VALIDATION:
        constraints.push(constraintCheck(dto, property, metadata));
        break;
      case ValidationTypes.NESTED_VALIDATION: {
        const nestedClass = nestedClasses.get(metadata.target)?.get(property);
        if (!nestedClass) throw new Error(`${dto.name}.${property}: declare nested DTOs with @Nested(), not @ValidateNested()`);
        nested = shapeCheck(nestedClass());
        break;
      }
      case ValidationTypes.WHITELIST:
        break;
      default:
        throw new Error(`${dto.name}.${property}: no shape check for validation of type ${metadata.type}`);
    }
  }
  return (object) => {
    const value = object[property];
    if (!conditions.every((condition) => condition(object, value))) return true;
    if (!constraints.every((valid) => valid(object, value))) return false;
    return nested === null || value === undefined || nestedValid(value, nested);
  };
}

function constraintCheck(dto: DtoClass, property: string, metadata: ValidationMetadata): (object: Record<string, unknown>, value: unknown) => boolean {
  const validators = getMetadataStorage()
    .getTargetValidatorConstraints(metadata.constraintCls)
    .map((constraint) => {
      if (constraint.async) throw new Error(`${dto.name}.${property}: no shape check for async validation ${constraint.name}`);
      return constraint.instance;
    });
  return (object, value) => {
    if (metadata.validateIf && !metadata.validateIf(object, value)) return true;
    const args: ValidationArguments = { targetName: dto.name, property, object, value, constraints: metadata.constraints };
    return validators.every((validator) =>
      metadata.each && Array.isArray(value) ? value.every((item) => !!validator.validate(item, args)) : !!validator.validate(value, args),
    );
  };
}

/** class-validator's nested walk: arrays item by item (an undefined item passes), objects by their DTO's check. */
function nestedValid(value: unknown, check: ShapeCheck): boolean {
  if (Array.isArray(value)) return value.every((item) => item === undefined || nestedValid(item, check));
  return value instanceof Object && check(value as Record<string, unknown>);
}
