/**
 * tsoa's request validation with a bound on what a refused body may cost (decision 0013).
 *
 * tsoa counts the problems found so far (`Object.keys(fieldErrors)`) at every object and array it
 * checks, so a body with many problems (a 620 KB kill import whose kills carry 100 unknown fields each)
 * cost time quadratic in their number: seconds of one event loop per body. It also copied the whole
 * body once per alternative of a union and wrote every alternative's problems, with the values they
 * concern, into one message (megabytes for such a body). Here:
 * - validation stops once MAX_VALIDATION_PROBLEMS problems are found: objects and arrays met after that
 *   are not looked into (the request is refused anyway);
 * - a union copies the body only for alternatives before the last one whose type the value has (the
 *   last may change the value in place: nothing looks at it after a failure), and the message that
 *   carries the alternatives' problems leaves out their values.
 * The answer lists the first MAX_VALIDATION_DETAILS problems and how many more were found
 * (`details_omitted`; validation-details.ts, app-errors.ts).
 */
import { ExpressTemplateService, ValidationService, type AdditionalProps, type FieldErrors, type TsoaRoute } from '@tsoa/runtime';

/** Problems found in one request after which validation stops looking. */
export const MAX_VALIDATION_PROBLEMS = 100;
/** Problems an answer lists at most (`details`); the rest are counted (`details_omitted`). */
export const MAX_VALIDATION_DETAILS = 20;

/** The message tsoa's union check starts with (validation-details.ts reads the alternatives after it). */
const UNION = 'Could not match the union against any of the items. Issues: ';

/** Whether `errors` holds `n` problems or more, counting no further than `n`. */
function atLeast(errors: FieldErrors, n: number): boolean {
  let count = 0;
  for (const _ in errors) if (++count >= n) return true;
  return false;
}

/** Whether a value of this JSON type could pass `schema` at its top (a wrong type fails at once, unchanged). */
function mayMatch(schema: TsoaRoute.PropertySchema, value: unknown, models: TsoaRoute.Models): boolean {
  if (schema.dataType === 'array') return Array.isArray(value);
  const model = schema.ref ? models[schema.ref] : undefined;
  if (model?.dataType === 'refAlias') return mayMatch(model.type, value, models);
  if (model?.dataType === 'refObject' || schema.dataType === 'nestedObjectLiteral') return typeof value === 'object' && value !== null && !Array.isArray(value);
  return true;
}

export class BoundedValidationService extends ValidationService {
  constructor(
    private readonly routeModels: TsoaRoute.Models,
    config: AdditionalProps,
  ) {
    super(routeModels, config);
  }

  override validateModel(input: Parameters<ValidationService['validateModel']>[0]): unknown {
    if (atLeast(input.fieldErrors, MAX_VALIDATION_PROBLEMS)) return undefined;
    return super.validateModel(input);
  }

  override validateArray(
    name: string,
    value: unknown[],
    fieldErrors: FieldErrors,
    isBodyParam: boolean,
    schema?: TsoaRoute.PropertySchema,
    validators?: Parameters<ValidationService['validateArray']>[5],
    parent = '',
  ): unknown[] | undefined {
    if (atLeast(fieldErrors, MAX_VALIDATION_PROBLEMS)) return undefined;
    return super.validateArray(name, value, fieldErrors, isBodyParam, schema, validators, parent);
  }

  /** tsoa's union check (the first alternative that passes wins), without its copies and values where they are not needed. */
  override validateUnion(
    name: string,
    value: unknown,
    fieldErrors: FieldErrors,
    isBodyParam: boolean,
    property: TsoaRoute.PropertySchema,
    parent = '',
  ): unknown {
    const alternatives = property.subSchemas ?? [];
    if (alternatives.length === 0) return super.validateUnion(name, value, fieldErrors, isBodyParam, property, parent);
    const problems: FieldErrors[] = [];
    for (const [i, alternative] of alternatives.entries()) {
      const found: FieldErrors = {};
      const schema = { ...alternative, validators: { ...property.validators, ...alternative.validators } };
      // Validation may change the value it checks (dates): an alternative that may fail after changing
      // it gets a copy, unless it is the last one (nothing looks at the value after a failure).
      const copy = value && i < alternatives.length - 1 && mayMatch(alternative, value, this.routeModels);
      const checked: unknown = copy ? JSON.parse(JSON.stringify(value)) : value;
      const clean: unknown = this.ValidateParam(schema, checked, name, found, isBodyParam, parent);
      if (Object.keys(found).length === 0) return clean;
      problems.push(found);
    }
    const withoutValues = problems.map((found) => Object.fromEntries(Object.entries(found).map(([field, p]) => [field, { message: p.message }])));
    // No `value`: the whole body is of no use in an answer, and a `value` of undefined would read as a missing field.
    fieldErrors[parent + name] = { message: `${UNION}${JSON.stringify(withoutValues)}` };
    return undefined;
  }
}

/** tsoa's express route service with the bounded validation above (used by the generated routes). */
export class BoundedExpressTemplateService extends ExpressTemplateService {
  constructor(models: TsoaRoute.Models, config: AdditionalProps) {
    super(models, config);
    this.validationService = new BoundedValidationService(models, config);
  }
}
