import { describe, expect, it } from 'vitest';
import { validationDetails } from '../../src/http/validation-details.js';

const UNION = 'Could not match the union against any of the items. Issues: ';
const union = (alternatives: Record<string, { message: string }>[]) => ({ message: `${UNION}${JSON.stringify(alternatives)}` });

describe('validationDetails (tsoa field errors → details)', () => {
  it('drops the body prefix and writes array positions with brackets', () => {
    expect(
      validationDetails({
        'body.name': { message: 'maxLength 255' },
        'body.systems.$2.status': { message: 'max 6' },
        'body.$0.kill_time': { message: "'kill_time' is required" },
        body: { message: 'invalid object' },
        days: { message: 'invalid integer number' },
      }),
    ).toEqual([
      { field: 'name', message: 'maxLength 255' },
      { field: 'systems[2].status', message: 'max 6' },
      { field: '[0].kill_time', message: "'kill_time' is required" },
      { field: 'body', message: 'must be an object' },
      { field: 'days', message: 'must be an integer' },
    ]);
  });

  it('says a missing parameter is required, whatever message its type check carries', () => {
    expect(
      validationDetails({
        id: { message: 'must be an integer', value: undefined },
        limit: { message: 'must be an integer', value: 'ten' },
        'body.solar_system_id': { message: "'solar_system_id' is required", value: undefined },
        'body.kills.$0.victim_id': { message: 'invalid integer number', value: undefined },
      } as never),
    ).toEqual([
      { field: 'id', message: "'id' is required" },
      { field: 'limit', message: 'must be an integer' },
      { field: 'solar_system_id', message: "'solar_system_id' is required" },
      { field: 'kills[0].victim_id', message: "'victim_id' is required" },
    ]);
  });

  it('names the allowed types when the value has none of them', () => {
    const err = union([{ 'body.tag': { message: 'invalid string value' } }, { 'body.tag': { message: 'should be one of the following; [null]' } }]);
    expect(validationDetails({ 'body.tag': err })).toEqual([{ field: 'tag', message: 'must be a string or null' }]);
  });

  it('reports the constraint of the alternative whose type matched, through nested unions', () => {
    const names = union([
      { 'body.status': { message: "should be one of the following; ['clear']" } },
      { 'body.status': { message: "should be one of the following; ['home']" } },
    ]);
    expect(validationDetails({ 'body.status': union([{ 'body.status': { message: 'max 6' } }, { 'body.status': names }]) })).toEqual([
      { field: 'status', message: 'max 6' },
    ]);
    expect(validationDetails({ 'body.status': union([{ 'body.status': { message: 'invalid integer number' } }, { 'body.status': names }]) })).toEqual([
      { field: 'status', message: "must be an integer or one of 'clear', 'home'" },
    ]);
  });

  it('picks the object alternative the body came closest to: fewest unknown fields, then fewest problems', () => {
    const single = {
      'body.systems': { message: '"systems" is an excess property and therefore is not allowed' },
      'body.solar_system_id': { message: "'solar_system_id' is required" },
    };
    const batch = { 'body.systems.$0.status': { message: 'max 6' }, 'body.systems.$1.status': { message: 'max 6' } };
    expect(validationDetails({ body: union([single, batch]) })).toEqual([
      { field: 'systems[0].status', message: 'max 6' },
      { field: 'systems[1].status', message: 'max 6' },
    ]);
    const arrayAlt = { body: { message: 'invalid array' } };
    const objectAlt = { 'body.foo': { message: '"foo" is an excess property and therefore is not allowed' } };
    expect(validationDetails({ body: union([arrayAlt, objectAlt]) })).toEqual([
      { field: 'foo', message: '"foo" is an excess property and therefore is not allowed' },
    ]);
  });

  it('survives an unparsable union message', () => {
    expect(validationDetails({ 'body.x': { message: `${UNION}[not json` } })).toEqual([{ field: 'x', message: 'does not match any of the allowed forms' }]);
  });
});
