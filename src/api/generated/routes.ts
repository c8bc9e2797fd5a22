/* tslint:disable */
/* eslint-disable */
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import type { TsoaRoute } from '@tsoa/runtime';
import {  fetchMiddlewares } from '@tsoa/runtime';
import { BoundedExpressTemplateService as ExpressTemplateService } from '../bounded-validation.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { StaticInfoController } from './../../static-data/static-info.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { SystemsController } from './../../maps/systems/systems.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { ConnectionsController } from './../../maps/connections/connections.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { TrackingController } from './../../maps/tracking/tracking.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { SignaturesController } from './../../maps/signatures/signatures.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { StructuresController } from './../../maps/structures/structures.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { SystemEditsController } from './../../maps/systems/system-edits.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { ConnectionEditsController } from './../../maps/connections/connection-edits.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { SignatureEditsController } from './../../maps/signatures/signature-edits.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { StructureEditsController } from './../../maps/structures/structure-edits.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { KillsController } from './../../maps/kills/kills.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { TrackingEditsController } from './../../maps/tracking/tracking-edits.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { ActivityController } from './../../maps/activity/activity.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { MapReadController } from './../../maps/map-read/map-read.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { WebhooksController } from './../../webhooks/webhooks.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { PresenceController } from './../../stream/presence.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { RouteFinderController } from './../../static-data/routes/route-finder.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { SignatureLinksController } from './../../maps/signatures/signature-links.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { MapRoutesController } from './../../maps/routes/map-routes.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { RallyPointsController } from './../../maps/rally-points/rally-points.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { EventsController } from './../../maps/event-log/event-log.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { AuditController } from './../../maps/audit/audit.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { EventCatalogController } from './../../events/event-catalog.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { CharactersController } from './../../characters/characters.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { AdminController } from './../../admin/admin.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { MapDuplicateController } from './../../admin/duplicate/map-duplicate.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { MapAclsController } from './../../acls/acls.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { AclsController } from './../../acls/acls.controller.js';
import { expressAuthentication } from './../auth.js';
// @ts-ignore - no great way to install types from subpackage
import { iocContainer } from './../ioc.js';
import type { IocContainer, IocContainerFactory } from '@tsoa/runtime';
import type { Request as ExRequest, Response as ExResponse, RequestHandler, Router } from 'express';

const expressAuthenticationRecasted = expressAuthentication as (req: ExRequest, securityName: string, scopes?: string[], res?: ExResponse) => Promise<any>;


// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

const models: TsoaRoute.Models = {
    "ErrorDetailDto": {
        "dataType": "refObject",
        "properties": {
            "field": {"dataType":"string","required":true},
            "message": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ErrorResponse": {
        "dataType": "refObject",
        "properties": {
            "error": {"dataType":"string","required":true},
            "code": {"dataType":"string","required":true},
            "details": {"dataType":"array","array":{"dataType":"refObject","ref":"ErrorDetailDto"}},
            "details_omitted": {"dataType":"integer"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "StaticDestinationDto": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "name": {"dataType":"string","required":true},
            "short_name": {"dataType":"string","required":true},
            "destinations": {"dataType":"array","array":{"dataType":"string"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "StaticPropertiesDto": {
        "dataType": "refObject",
        "properties": {
            "lifetime": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "max_mass": {"dataType":"union","subSchemas":[{"dataType":"double"},{"dataType":"enum","enums":[null]}],"required":true},
            "max_jump_mass": {"dataType":"union","subSchemas":[{"dataType":"double"},{"dataType":"enum","enums":[null]}],"required":true},
            "mass_regeneration": {"dataType":"union","subSchemas":[{"dataType":"double"},{"dataType":"enum","enums":[null]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "StaticDetailDto": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true},
            "destination": {"ref":"StaticDestinationDto","required":true},
            "properties": {"ref":"StaticPropertiesDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SystemStaticInfoDto": {
        "dataType": "refObject",
        "properties": {
            "solar_system_id": {"dataType":"integer","required":true},
            "triglavian_invasion_status": {"dataType":"string","required":true},
            "solar_system_name": {"dataType":"string","required":true},
            "solar_system_name_lc": {"dataType":"string","required":true},
            "system_class": {"dataType":"integer","required":true},
            "class_title": {"dataType":"string","required":true},
            "type_description": {"dataType":"string","required":true},
            "region_id": {"dataType":"integer","required":true},
            "region_name": {"dataType":"string","required":true},
            "constellation_id": {"dataType":"integer","required":true},
            "constellation_name": {"dataType":"string","required":true},
            "security": {"dataType":"string","required":true},
            "is_shattered": {"dataType":"boolean","required":true},
            "effect_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "effect_power": {"dataType":"integer","required":true},
            "statics": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "wandering": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "static_details": {"dataType":"array","array":{"dataType":"refObject","ref":"StaticDetailDto"},"required":true},
            "sun_type_id": {"dataType":"integer","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_SystemStaticInfoDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"SystemStaticInfoDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SystemDto": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "status": {"dataType":"integer","required":true},
            "tag": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "visible": {"dataType":"boolean","required":true},
            "description": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "labels": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "inserted_at": {"dataType":"string","required":true},
            "updated_at": {"dataType":"string","required":true},
            "locked": {"dataType":"boolean","required":true},
            "solar_system_id": {"dataType":"integer","required":true},
            "map_id": {"dataType":"string","required":true},
            "custom_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "position_x": {"dataType":"integer","required":true},
            "position_y": {"dataType":"integer","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ConnectionDto": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "type": {"dataType":"integer","required":true},
            "mass_status": {"dataType":"integer","required":true},
            "ship_size_type": {"dataType":"integer","required":true},
            "time_status": {"dataType":"integer","required":true},
            "map_id": {"dataType":"string","required":true},
            "inserted_at": {"dataType":"string","required":true},
            "updated_at": {"dataType":"string","required":true},
            "solar_system_source": {"dataType":"integer","required":true},
            "solar_system_target": {"dataType":"integer","required":true},
            "wormhole_type": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SystemsAndConnectionsDto": {
        "dataType": "refObject",
        "properties": {
            "systems": {"dataType":"array","array":{"dataType":"refObject","ref":"SystemDto"},"required":true},
            "connections": {"dataType":"array","array":{"dataType":"refObject","ref":"ConnectionDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_SystemsAndConnectionsDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"SystemsAndConnectionsDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_SystemDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"SystemDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_ConnectionDto-Array_": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"ConnectionDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CharacterDto": {
        "dataType": "refObject",
        "properties": {
            "eve_id": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "corporation_id": {"dataType":"string","required":true},
            "corporation_ticker": {"dataType":"string","required":true},
            "alliance_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "alliance_ticker": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "TrackedCharacterDto": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "character": {"ref":"CharacterDto","required":true},
            "tracked": {"dataType":"boolean","required":true},
            "map_id": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_TrackedCharacterDto-Array_": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"TrackedCharacterDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "UserCharactersDto": {
        "dataType": "refObject",
        "properties": {
            "characters": {"dataType":"array","array":{"dataType":"refObject","ref":"CharacterDto"},"required":true},
            "main_character_eve_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_UserCharactersDto-Array_": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"UserCharactersDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SignatureDto": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "solar_system_id": {"dataType":"integer","required":true},
            "signature_id": {"dataType":"string","required":true},
            "name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "kind": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "group": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "type": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "description": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "character_eve_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "linked_system_id": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"required":true},
            "inserted_at": {"dataType":"string","required":true},
            "updated_at": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_SignatureDto-Array_": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"SignatureDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "StructureTimerDto": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "system_id": {"dataType":"string","required":true},
            "solar_system_id": {"dataType":"integer","required":true},
            "solar_system_name": {"dataType":"string","required":true},
            "structure_type_id": {"dataType":"string","required":true},
            "structure_type": {"dataType":"string","required":true},
            "character_eve_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "name": {"dataType":"string","required":true},
            "notes": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "owner_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "owner_ticker": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "owner_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "status": {"dataType":"string","required":true},
            "end_time": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "inserted_at": {"dataType":"string","required":true},
            "updated_at": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_StructureTimerDto-Array_": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"StructureTimerDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_SystemDto-or-SystemDto-Array_": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"union","subSchemas":[{"ref":"SystemDto"},{"dataType":"array","array":{"dataType":"refObject","ref":"SystemDto"}}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SystemStatusCode": {
        "dataType": "refAlias",
        "type": {"dataType":"integer","validators":{"minimum":{"value":0},"maximum":{"value":6}}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SystemStatusName": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["clear"]},{"dataType":"enum","enums":["home"]},{"dataType":"enum","enums":["friendly"]},{"dataType":"enum","enums":["looking_for"]},{"dataType":"enum","enums":["warning"]},{"dataType":"enum","enums":["target"]},{"dataType":"enum","enums":["dangerous"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "AddSystemRequest": {
        "dataType": "refObject",
        "properties": {
            "position_x": {"dataType":"integer","validators":{"minimum":{"value":-2147483648},"maximum":{"value":2147483647}}},
            "position_y": {"dataType":"integer","validators":{"minimum":{"value":-2147483648},"maximum":{"value":2147483647}}},
            "custom_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":255}}},
            "tag": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":64}}},
            "status": {"dataType":"union","subSchemas":[{"ref":"SystemStatusCode"},{"ref":"SystemStatusName"}]},
            "labels": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":4000}}},
            "description": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":10000}}},
            "locked": {"dataType":"boolean"},
            "solar_system_id": {"dataType":"integer","required":true,"validators":{"minimum":{"value":0},"maximum":{"value":2147483647}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "AddSystemsRequest": {
        "dataType": "refObject",
        "properties": {
            "systems": {"dataType":"array","array":{"dataType":"refObject","ref":"AddSystemRequest"},"required":true,"validators":{"minItems":{"value":1},"maxItems":{"value":100}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "UpdateSystemRequest": {
        "dataType": "refObject",
        "properties": {
            "position_x": {"dataType":"integer","validators":{"minimum":{"value":-2147483648},"maximum":{"value":2147483647}}},
            "position_y": {"dataType":"integer","validators":{"minimum":{"value":-2147483648},"maximum":{"value":2147483647}}},
            "custom_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":255}}},
            "tag": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":64}}},
            "status": {"dataType":"union","subSchemas":[{"ref":"SystemStatusCode"},{"ref":"SystemStatusName"}]},
            "labels": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":4000}}},
            "description": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":10000}}},
            "locked": {"dataType":"boolean"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DeletedCountDto": {
        "dataType": "refObject",
        "properties": {
            "deleted_count": {"dataType":"integer","required":true},
            "deleted_systems": {"dataType":"integer","required":true},
            "deleted_connections": {"dataType":"integer","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_DeletedCountDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"DeletedCountDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SolarSystemIdValue": {
        "dataType": "refAlias",
        "type": {"dataType":"integer","validators":{"minimum":{"value":0},"maximum":{"value":2147483647}}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ConnectionIdValue": {
        "dataType": "refAlias",
        "type": {"dataType":"string","validators":{"pattern":{"value":"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"}}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DeleteSystemsAndConnectionsRequest": {
        "dataType": "refObject",
        "properties": {
            "system_ids": {"dataType":"array","array":{"dataType":"refAlias","ref":"SolarSystemIdValue"},"validators":{"maxItems":{"value":100}}},
            "connection_ids": {"dataType":"array","array":{"dataType":"refAlias","ref":"ConnectionIdValue"},"validators":{"maxItems":{"value":100}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_ConnectionDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"ConnectionDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "AddConnectionRequest": {
        "dataType": "refObject",
        "properties": {
            "solar_system_source": {"dataType":"integer","required":true,"validators":{"minimum":{"value":0},"maximum":{"value":2147483647}}},
            "solar_system_target": {"dataType":"integer","required":true,"validators":{"minimum":{"value":0},"maximum":{"value":2147483647}}},
            "type": {"dataType":"integer","validators":{"minimum":{"value":0},"maximum":{"value":2}}},
            "mass_status": {"dataType":"integer","validators":{"minimum":{"value":0},"maximum":{"value":2}}},
            "time_status": {"dataType":"integer","validators":{"minimum":{"value":0},"maximum":{"value":6}}},
            "ship_size_type": {"dataType":"integer","validators":{"minimum":{"value":0},"maximum":{"value":4}}},
            "wormhole_type": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"pattern":{"value":"^[A-Za-z0-9]{1,16}$"}}},
            "locked": {"dataType":"boolean"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "UpdateConnectionRequest": {
        "dataType": "refObject",
        "properties": {
            "type": {"dataType":"integer","validators":{"minimum":{"value":0},"maximum":{"value":2}}},
            "mass_status": {"dataType":"integer","validators":{"minimum":{"value":0},"maximum":{"value":2}}},
            "time_status": {"dataType":"integer","validators":{"minimum":{"value":0},"maximum":{"value":6}}},
            "ship_size_type": {"dataType":"integer","validators":{"minimum":{"value":0},"maximum":{"value":4}}},
            "wormhole_type": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"pattern":{"value":"^[A-Za-z0-9]{1,16}$"}}},
            "locked": {"dataType":"boolean"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SignaturesUpdatedDto": {
        "dataType": "refObject",
        "properties": {
            "solar_system_id": {"dataType":"integer","required":true},
            "added_count": {"dataType":"integer","required":true},
            "updated_count": {"dataType":"integer","required":true},
            "removed_count": {"dataType":"integer","required":true},
            "signatures": {"dataType":"array","array":{"dataType":"refObject","ref":"SignatureDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_SignaturesUpdatedDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"SignaturesUpdatedDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SignatureInput": {
        "dataType": "refObject",
        "properties": {
            "signature_id": {"dataType":"string","required":true,"validators":{"pattern":{"value":"^[A-Za-z]{3}-[0-9]{3}$"}}},
            "name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":255}}},
            "kind": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":64}}},
            "group": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":64}}},
            "type": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":64}}},
            "description": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":10000}}},
            "linked_system_id": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"validators":{"minimum":{"value":0},"maximum":{"value":2147483647}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "UpsertSignaturesRequest": {
        "dataType": "refObject",
        "properties": {
            "signatures": {"dataType":"array","array":{"dataType":"refObject","ref":"SignatureInput"},"required":true,"validators":{"maxItems":{"value":500}}},
            "replace": {"dataType":"boolean"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_StructureTimerDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"StructureTimerDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "StructureStatus": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["Powered"]},{"dataType":"enum","enums":["Anchoring"]},{"dataType":"enum","enums":["Unanchoring"]},{"dataType":"enum","enums":["Low Power"]},{"dataType":"enum","enums":["Abandoned"]},{"dataType":"enum","enums":["Reinforced"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CreateStructureRequest": {
        "dataType": "refObject",
        "properties": {
            "solar_system_id": {"dataType":"integer","required":true,"validators":{"minimum":{"value":0},"maximum":{"value":2147483647}}},
            "structure_type_id": {"dataType":"string","required":true,"validators":{"minLength":{"value":1},"maxLength":{"value":32}}},
            "structure_type": {"dataType":"string","required":true,"validators":{"minLength":{"value":1},"maxLength":{"value":100}}},
            "name": {"dataType":"string","required":true,"validators":{"minLength":{"value":1},"maxLength":{"value":255}}},
            "status": {"ref":"StructureStatus"},
            "end_time": {"dataType":"union","subSchemas":[{"dataType":"datetime"},{"dataType":"enum","enums":[null]}]},
            "notes": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":10000}}},
            "owner_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":255}}},
            "owner_ticker": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":16}}},
            "owner_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":32}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "UpdateStructureRequest": {
        "dataType": "refObject",
        "properties": {
            "solar_system_id": {"dataType":"integer","validators":{"minimum":{"value":0},"maximum":{"value":2147483647}}},
            "structure_type_id": {"dataType":"string","validators":{"minLength":{"value":1},"maxLength":{"value":32}}},
            "structure_type": {"dataType":"string","validators":{"minLength":{"value":1},"maxLength":{"value":100}}},
            "name": {"dataType":"string","validators":{"minLength":{"value":1},"maxLength":{"value":255}}},
            "status": {"ref":"StructureStatus"},
            "end_time": {"dataType":"union","subSchemas":[{"dataType":"datetime"},{"dataType":"enum","enums":[null]}]},
            "notes": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":10000}}},
            "owner_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":255}}},
            "owner_ticker": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":16}}},
            "owner_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":32}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "KillImportResultDto": {
        "dataType": "refObject",
        "properties": {
            "inserted": {"dataType":"integer","required":true},
            "duplicates": {"dataType":"integer","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_KillImportResultDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"KillImportResultDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ZkbLabel": {
        "dataType": "refAlias",
        "type": {"dataType":"string","validators":{"maxLength":{"value":64}}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ZkbInput": {
        "dataType": "refObject",
        "properties": {
            "awox": {"dataType":"boolean","required":true},
            "destroyedValue": {"dataType":"double","required":true,"validators":{"minimum":{"value":0}}},
            "droppedValue": {"dataType":"double","required":true,"validators":{"minimum":{"value":0}}},
            "fittedValue": {"dataType":"double","required":true,"validators":{"minimum":{"value":0}}},
            "hash": {"dataType":"string","required":true,"validators":{"maxLength":{"value":128}}},
            "labels": {"dataType":"array","array":{"dataType":"refAlias","ref":"ZkbLabel"},"required":true,"validators":{"maxItems":{"value":50}}},
            "locationID": {"dataType":"integer","required":true,"validators":{"minimum":{"value":0},"maximum":{"value":9007199254740991}}},
            "npc": {"dataType":"boolean","required":true},
            "points": {"dataType":"integer","required":true,"validators":{"minimum":{"value":-2147483648},"maximum":{"value":2147483647}}},
            "solo": {"dataType":"boolean","required":true},
            "totalValue": {"dataType":"double","required":true,"validators":{"minimum":{"value":0}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "KillInput": {
        "dataType": "refObject",
        "properties": {
            "killmail_id": {"dataType":"integer","required":true,"validators":{"minimum":{"value":1},"maximum":{"value":9007199254740991}}},
            "kill_time": {"dataType":"datetime","required":true},
            "solar_system_id": {"dataType":"integer","required":true,"validators":{"minimum":{"value":0},"maximum":{"value":2147483647}}},
            "attacker_count": {"dataType":"integer","required":true,"validators":{"minimum":{"value":0},"maximum":{"value":2147483647}}},
            "npc": {"dataType":"boolean","required":true},
            "total_value": {"dataType":"double","required":true,"validators":{"minimum":{"value":0}}},
            "final_blow_alliance_id": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"validators":{"minimum":{"value":0},"maximum":{"value":9007199254740991}}},
            "final_blow_char_id": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"validators":{"minimum":{"value":0},"maximum":{"value":9007199254740991}}},
            "final_blow_corp_id": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"validators":{"minimum":{"value":0},"maximum":{"value":9007199254740991}}},
            "final_blow_ship_type_id": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"validators":{"minimum":{"value":0},"maximum":{"value":9007199254740991}}},
            "final_blow_alliance_ticker": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":16}}},
            "final_blow_char_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":255}}},
            "final_blow_corp_ticker": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":16}}},
            "final_blow_ship_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":255}}},
            "victim_alliance_id": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"validators":{"minimum":{"value":0},"maximum":{"value":9007199254740991}}},
            "victim_char_id": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"validators":{"minimum":{"value":0},"maximum":{"value":9007199254740991}}},
            "victim_corp_id": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"validators":{"minimum":{"value":0},"maximum":{"value":9007199254740991}}},
            "victim_ship_type_id": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"validators":{"minimum":{"value":0},"maximum":{"value":9007199254740991}}},
            "victim_char_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":255}}},
            "victim_corp_ticker": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":16}}},
            "victim_ship_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":255}}},
            "zkb": {"ref":"ZkbInput","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "KillInputList": {
        "dataType": "refAlias",
        "type": {"dataType":"array","array":{"dataType":"refObject","ref":"KillInput"},"validators":{"minItems":{"value":1},"maxItems":{"value":200}}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "KillsBatchRequest": {
        "dataType": "refObject",
        "properties": {
            "kills": {"dataType":"array","array":{"dataType":"refObject","ref":"KillInput"},"required":true,"validators":{"minItems":{"value":1},"maxItems":{"value":200}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_TrackedCharacterDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"TrackedCharacterDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SetTrackedRequest": {
        "dataType": "refObject",
        "properties": {
            "tracked": {"dataType":"boolean","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CharacterActivityDayDto": {
        "dataType": "refObject",
        "properties": {
            "character": {"ref":"CharacterDto","required":true},
            "day": {"dataType":"string","required":true},
            "passages": {"dataType":"integer","required":true},
            "connections": {"dataType":"integer","required":true},
            "signatures": {"dataType":"integer","required":true},
            "timestamp": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_CharacterActivityDayDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"CharacterActivityDayDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CharacterActivityRequest": {
        "dataType": "refObject",
        "properties": {
            "character_eve_id": {"dataType":"string","validators":{"pattern":{"errorMsg":"must be decimal digits without a leading zero","value":"^[1-9][0-9]{0,19}$"}}},
            "passages": {"dataType":"integer","validators":{"minimum":{"value":0},"maximum":{"value":10000}}},
            "connections": {"dataType":"integer","validators":{"minimum":{"value":0},"maximum":{"value":10000}}},
            "signatures": {"dataType":"integer","validators":{"minimum":{"value":0},"maximum":{"value":10000}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_SystemDto-Array_": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"SystemDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ZkbDto": {
        "dataType": "refObject",
        "properties": {
            "awox": {"dataType":"boolean","required":true},
            "destroyedValue": {"dataType":"double","required":true},
            "droppedValue": {"dataType":"double","required":true},
            "fittedValue": {"dataType":"double","required":true},
            "hash": {"dataType":"string","required":true},
            "labels": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "locationID": {"dataType":"integer","required":true},
            "npc": {"dataType":"boolean","required":true},
            "points": {"dataType":"integer","required":true},
            "solo": {"dataType":"boolean","required":true},
            "totalValue": {"dataType":"double","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "KillDto": {
        "dataType": "refObject",
        "properties": {
            "killmail_id": {"dataType":"integer","required":true},
            "kill_time": {"dataType":"string","required":true},
            "solar_system_id": {"dataType":"integer","required":true},
            "attacker_count": {"dataType":"integer","required":true},
            "npc": {"dataType":"boolean","required":true},
            "total_value": {"dataType":"double","required":true},
            "final_blow_alliance_id": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"required":true},
            "final_blow_char_id": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"required":true},
            "final_blow_corp_id": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"required":true},
            "final_blow_ship_type_id": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"required":true},
            "final_blow_alliance_ticker": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "final_blow_char_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "final_blow_corp_ticker": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "final_blow_ship_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "victim_alliance_id": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"required":true},
            "victim_char_id": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"required":true},
            "victim_corp_id": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"required":true},
            "victim_ship_type_id": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"required":true},
            "victim_char_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "victim_corp_ticker": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "victim_ship_name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "zkb": {"ref":"ZkbDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SystemKillsDto": {
        "dataType": "refObject",
        "properties": {
            "solar_system_id": {"dataType":"integer","required":true},
            "kills": {"dataType":"array","array":{"dataType":"refObject","ref":"KillDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_SystemKillsDto-Array_": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"SystemKillsDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CharacterActivityDto": {
        "dataType": "refObject",
        "properties": {
            "character": {"ref":"CharacterDto","required":true},
            "passages": {"dataType":"integer","required":true},
            "connections": {"dataType":"integer","required":true},
            "signatures": {"dataType":"integer","required":true},
            "timestamp": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_CharacterActivityDto-Array_": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"CharacterActivityDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "WebhooksToggleDto": {
        "dataType": "refObject",
        "properties": {
            "webhooks_enabled": {"dataType":"boolean","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_WebhooksToggleDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"WebhooksToggleDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ToggleWebhooksRequest": {
        "dataType": "refObject",
        "properties": {
            "enabled": {"dataType":"boolean","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "WebhookSubscriptionDto": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "map_id": {"dataType":"string","required":true},
            "url": {"dataType":"string","required":true},
            "events": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "active": {"dataType":"boolean","required":true},
            "last_delivery_at": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "last_error": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "last_error_at": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "consecutive_failures": {"dataType":"integer","required":true},
            "managed_by": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "inserted_at": {"dataType":"string","required":true},
            "updated_at": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_WebhookSubscriptionDto-Array_": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"WebhookSubscriptionDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CreatedWebhookSubscriptionDto": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "map_id": {"dataType":"string","required":true},
            "url": {"dataType":"string","required":true},
            "events": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "active": {"dataType":"boolean","required":true},
            "last_delivery_at": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "last_error": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "last_error_at": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "consecutive_failures": {"dataType":"integer","required":true},
            "managed_by": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "inserted_at": {"dataType":"string","required":true},
            "updated_at": {"dataType":"string","required":true},
            "secret": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_CreatedWebhookSubscriptionDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"CreatedWebhookSubscriptionDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CreateWebhookRequest": {
        "dataType": "refObject",
        "properties": {
            "url": {"dataType":"string","required":true,"validators":{"maxLength":{"value":2000}}},
            "events": {"dataType":"array","array":{"dataType":"string"},"required":true,"validators":{"minItems":{"value":1},"maxItems":{"value":50}}},
            "active": {"dataType":"boolean"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_WebhookSubscriptionDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"WebhookSubscriptionDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "UpdateWebhookRequest": {
        "dataType": "refObject",
        "properties": {
            "url": {"dataType":"string","validators":{"maxLength":{"value":2000}}},
            "events": {"dataType":"array","array":{"dataType":"string"},"validators":{"minItems":{"value":1},"maxItems":{"value":50}}},
            "active": {"dataType":"boolean"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "WebhookSecretDto": {
        "dataType": "refObject",
        "properties": {
            "secret": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_WebhookSecretDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"WebhookSecretDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DeliveryAttemptDto": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"integer","required":true},
            "event_id": {"dataType":"string","required":true},
            "event_type": {"dataType":"string","required":true},
            "attempt": {"dataType":"integer","required":true},
            "attempted_at": {"dataType":"string","required":true},
            "status": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"required":true},
            "duration_ms": {"dataType":"integer","required":true},
            "outcome": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["success"]},{"dataType":"enum","enums":["failure"]}],"required":true},
            "error_class": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "error": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "next_attempt_at": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "sequence": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"required":true},
            "recovered": {"dataType":"boolean","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DeliveryAttemptsPage": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"DeliveryAttemptDto"},"required":true},
            "next_before": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "QueuedDeliveryDto": {
        "dataType": "refObject",
        "properties": {
            "event_id": {"dataType":"string","required":true},
            "event_type": {"dataType":"string","required":true},
            "subscription_id": {"dataType":"string","required":true},
            "state": {"dataType":"enum","enums":["pending"],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_QueuedDeliveryDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"QueuedDeliveryDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RedeliverRequest": {
        "dataType": "refObject",
        "properties": {
            "event_id": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RecoverResultDto": {
        "dataType": "refObject",
        "properties": {
            "events": {"dataType":"integer","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_RecoverResultDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"RecoverResultDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RecoverRequest": {
        "dataType": "refObject",
        "properties": {
            "since": {"dataType":"datetime","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Record_string.number_": {
        "dataType": "refAlias",
        "type": {"dataType":"nestedObjectLiteral","nestedProperties":{},"additionalProperties":{"dataType":"double"},"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "WebhookLatencyDto": {
        "dataType": "refObject",
        "properties": {
            "p50": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"required":true},
            "p99": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "WebhookStatsDto": {
        "dataType": "refObject",
        "properties": {
            "window_seconds": {"dataType":"integer","required":true},
            "attempts": {"dataType":"integer","required":true},
            "succeeded": {"dataType":"integer","required":true},
            "failed": {"dataType":"integer","required":true},
            "failed_by_class": {"ref":"Record_string.number_","required":true},
            "latency_ms": {"ref":"WebhookLatencyDto","required":true},
            "last_error": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "last_error_at": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_WebhookStatsDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"WebhookStatsDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "PingResultDto": {
        "dataType": "refObject",
        "properties": {
            "event_id": {"dataType":"string","required":true},
            "status": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"required":true},
            "duration_ms": {"dataType":"integer","required":true},
            "outcome": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["success"]},{"dataType":"enum","enums":["failure"]}],"required":true},
            "error_class": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "error": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_PingResultDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"PingResultDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "PresenceDto": {
        "dataType": "refObject",
        "properties": {
            "connections": {"dataType":"double","required":true},
            "keys": {"dataType":"array","array":{"dataType":"nestedObjectLiteral","nestedProperties":{"connections":{"dataType":"double","required":true},"name":{"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},"key_id":{"dataType":"string","required":true}}},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ClosestRouteDto": {
        "dataType": "refObject",
        "properties": {
            "origin": {"dataType":"double","required":true},
            "destination": {"dataType":"double","required":true},
            "systems": {"dataType":"array","array":{"dataType":"double"},"required":true},
            "jumps": {"dataType":"double","required":true},
            "success": {"dataType":"boolean","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "FindClosestResponse": {
        "dataType": "refObject",
        "properties": {
            "routes": {"dataType":"array","array":{"dataType":"refObject","ref":"ClosestRouteDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RouteSystemId": {
        "dataType": "refAlias",
        "type": {"dataType":"integer","validators":{"minimum":{"value":0},"maximum":{"value":2147483647}}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RouteFlag": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["shortest"]},{"dataType":"enum","enums":["secure"]},{"dataType":"enum","enums":["insecure"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SystemPair": {
        "dataType": "refAlias",
        "type": {"dataType":"string","validators":{"pattern":{"value":"^[0-9]{1,10}\\|[0-9]{1,10}$"}}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DestinationType": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["trade_hubs"]},{"dataType":"enum","enums":["thera"]},{"dataType":"enum","enums":["turnur"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "FindClosestRequest": {
        "dataType": "refObject",
        "properties": {
            "origin": {"ref":"RouteSystemId","required":true},
            "flag": {"ref":"RouteFlag"},
            "connections": {"dataType":"array","array":{"dataType":"refAlias","ref":"SystemPair"},"validators":{"maxItems":{"value":5000}}},
            "avoid": {"dataType":"array","array":{"dataType":"refAlias","ref":"RouteSystemId"},"validators":{"maxItems":{"value":1000}}},
            "count": {"dataType":"integer","validators":{"minimum":{"value":1},"maximum":{"value":10}}},
            "type": {"ref":"DestinationType"},
            "destinations": {"dataType":"array","array":{"dataType":"refAlias","ref":"RouteSystemId"},"validators":{"minItems":{"value":1},"maxItems":{"value":100}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_SignatureDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"SignatureDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LinkSignatureRequest": {
        "dataType": "refObject",
        "properties": {
            "solar_system_target": {"dataType":"integer","required":true,"validators":{"minimum":{"value":0},"maximum":{"value":2147483647}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "MapRouteDto": {
        "dataType": "refObject",
        "properties": {
            "jumps": {"dataType":"double","required":true},
            "systems": {"dataType":"array","array":{"dataType":"double"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_MapRouteDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"MapRouteDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RallyPointDto": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "solar_system_id": {"dataType":"integer","required":true},
            "system_id": {"dataType":"string","required":true},
            "system_name": {"dataType":"string","required":true},
            "character_eve_id": {"dataType":"string","required":true},
            "character_name": {"dataType":"string","required":true},
            "message": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "inserted_at": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_RallyPointDto-Array_": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"RallyPointDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_RallyPointDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"RallyPointDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "AddRallyPointRequest": {
        "dataType": "refObject",
        "properties": {
            "solar_system_id": {"dataType":"integer","required":true,"validators":{"minimum":{"value":0},"maximum":{"value":2147483647}}},
            "character_eve_id": {"dataType":"string","required":true,"validators":{"pattern":{"errorMsg":"must be decimal digits without a leading zero","value":"^[1-9][0-9]{0,19}$"}}},
            "message": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":1000}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "EventType": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["add_system"]},{"dataType":"enum","enums":["deleted_system"]},{"dataType":"enum","enums":["system_metadata_changed"]},{"dataType":"enum","enums":["connection_added"]},{"dataType":"enum","enums":["connection_removed"]},{"dataType":"enum","enums":["connection_updated"]},{"dataType":"enum","enums":["signature_added"]},{"dataType":"enum","enums":["signature_removed"]},{"dataType":"enum","enums":["signatures_updated"]},{"dataType":"enum","enums":["map_kill"]},{"dataType":"enum","enums":["acl_member_added"]},{"dataType":"enum","enums":["acl_member_removed"]},{"dataType":"enum","enums":["acl_member_updated"]},{"dataType":"enum","enums":["character_added"]},{"dataType":"enum","enums":["character_removed"]},{"dataType":"enum","enums":["characters_updated"]},{"dataType":"enum","enums":["rally_point_added"]},{"dataType":"enum","enums":["rally_point_removed"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Record_string.unknown_": {
        "dataType": "refAlias",
        "type": {"dataType":"nestedObjectLiteral","nestedProperties":{},"additionalProperties":{"dataType":"any"},"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "EventEnvelope": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "type": {"ref":"EventType","required":true},
            "map_id": {"dataType":"string","required":true},
            "ts": {"dataType":"string","required":true},
            "payload": {"ref":"Record_string.unknown_","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "EventLogResponse": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"EventEnvelope"},"required":true},
            "next_after": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "AuditEntryDto": {
        "dataType": "refObject",
        "properties": {
            "entity_type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["map"]},{"dataType":"enum","enums":["access_list"]}],"required":true},
            "event_name": {"dataType":"string","required":true},
            "event_type": {"dataType":"string","required":true},
            "event_data": {"ref":"Record_string.unknown_","required":true},
            "character": {"dataType":"union","subSchemas":[{"ref":"CharacterDto"},{"dataType":"enum","enums":[null]}],"required":true},
            "inserted_at": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_AuditEntryDto-Array_": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"AuditEntryDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "AuditPeriod": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["1H"]},{"dataType":"enum","enums":["1D"]},{"dataType":"enum","enums":["1W"]},{"dataType":"enum","enums":["1M"]},{"dataType":"enum","enums":["2M"]},{"dataType":"enum","enums":["3M"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "EventTypeDto": {
        "dataType": "refObject",
        "properties": {
            "type": {"dataType":"string","required":true},
            "description": {"dataType":"string","required":true},
            "schema": {"ref":"Record_string.unknown_","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "EventCatalogResponse": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"EventTypeDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_CharacterDto-Array_": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"CharacterDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "UserDto": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "main_character_eve_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "characters": {"dataType":"array","array":{"dataType":"refObject","ref":"CharacterDto"},"required":true},
            "inserted_at": {"dataType":"string","required":true},
            "updated_at": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_UserDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"UserDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CreateUserRequest": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true,"validators":{"minLength":{"value":1},"maxLength":{"value":255}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_UserDto-Array_": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"UserDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SetMainCharacterRequest": {
        "dataType": "refObject",
        "properties": {
            "eve_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true,"validators":{"pattern":{"errorMsg":"must be decimal digits without a leading zero","value":"^[1-9][0-9]{0,19}$"}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "AdminCharacterDto": {
        "dataType": "refObject",
        "properties": {
            "eve_id": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "corporation_id": {"dataType":"string","required":true},
            "corporation_ticker": {"dataType":"string","required":true},
            "alliance_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "alliance_ticker": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "id": {"dataType":"string","required":true},
            "user_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_AdminCharacterDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"AdminCharacterDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "UpsertCharacterRequest": {
        "dataType": "refObject",
        "properties": {
            "eve_id": {"dataType":"string","required":true,"validators":{"pattern":{"errorMsg":"must be decimal digits without a leading zero","value":"^[1-9][0-9]{0,19}$"}}},
            "name": {"dataType":"string","required":true,"validators":{"minLength":{"value":1},"maxLength":{"value":255}}},
            "corporation_id": {"dataType":"string","required":true,"validators":{"pattern":{"errorMsg":"must be decimal digits without a leading zero","value":"^[1-9][0-9]{0,19}$"}}},
            "corporation_ticker": {"dataType":"string","required":true,"validators":{"minLength":{"value":1},"maxLength":{"value":16}}},
            "alliance_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"pattern":{"errorMsg":"must be decimal digits without a leading zero","value":"^[1-9][0-9]{0,19}$"}}},
            "alliance_ticker": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"minLength":{"value":1},"maxLength":{"value":16}}},
            "user_id": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}]},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_AdminCharacterDto-Array_": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"AdminCharacterDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "AdminMapDto": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "slug": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "description": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "owner_eve_id": {"dataType":"string","required":true},
            "webhooks_enabled": {"dataType":"boolean","required":true},
            "inserted_at": {"dataType":"string","required":true},
            "updated_at": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "KeyProfile": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["spec"]},{"dataType":"enum","enums":["reference"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "IssuedMapKeyDto": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "map_id": {"dataType":"string","required":true},
            "character_eve_id": {"dataType":"string","required":true},
            "name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "prefix": {"dataType":"string","required":true},
            "revoked_at": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "inserted_at": {"dataType":"string","required":true},
            "profile": {"ref":"KeyProfile","required":true},
            "stream_profile": {"ref":"KeyProfile","required":true},
            "api_key": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CreatedMapDto": {
        "dataType": "refObject",
        "properties": {
            "map": {"ref":"AdminMapDto","required":true},
            "api_key": {"ref":"IssuedMapKeyDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_CreatedMapDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"CreatedMapDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CreateMapRequest": {
        "dataType": "refObject",
        "properties": {
            "slug": {"dataType":"string","required":true,"validators":{"pattern":{"value":"^[a-z0-9][a-z0-9-]{0,99}$"}}},
            "name": {"dataType":"string","required":true,"validators":{"minLength":{"value":1},"maxLength":{"value":255}}},
            "description": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":10000}}},
            "owner_eve_id": {"dataType":"string","required":true,"validators":{"pattern":{"errorMsg":"must be decimal digits without a leading zero","value":"^[1-9][0-9]{0,19}$"}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_AdminMapDto-Array_": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"AdminMapDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_AdminMapDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"AdminMapDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_IssuedMapKeyDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"IssuedMapKeyDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "IssueMapKeyRequest": {
        "dataType": "refObject",
        "properties": {
            "character_eve_id": {"dataType":"string","required":true,"validators":{"pattern":{"errorMsg":"must be decimal digits without a leading zero","value":"^[1-9][0-9]{0,19}$"}}},
            "name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":255}}},
            "profile": {"ref":"KeyProfile"},
            "stream_profile": {"ref":"KeyProfile"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "MapKeyDto": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "map_id": {"dataType":"string","required":true},
            "character_eve_id": {"dataType":"string","required":true},
            "name": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "prefix": {"dataType":"string","required":true},
            "revoked_at": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "inserted_at": {"dataType":"string","required":true},
            "profile": {"ref":"KeyProfile","required":true},
            "stream_profile": {"ref":"KeyProfile","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_MapKeyDto-Array_": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"MapKeyDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_MapKeyDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"MapKeyDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "TrackCharacterRequest": {
        "dataType": "refObject",
        "properties": {
            "tracked": {"dataType":"boolean","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DuplicatedMapDto": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "slug": {"dataType":"string","required":true},
            "description": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "api_key": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_DuplicatedMapDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"DuplicatedMapDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DuplicateMapRequest": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true,"validators":{"minLength":{"value":3},"maxLength":{"value":20}}},
            "description": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":10000}}},
            "copy_acls": {"dataType":"boolean"},
            "copy_signatures": {"dataType":"boolean"},
            "copy_user_settings": {"dataType":"boolean"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "AclListItemDto": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "description": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "owner_eve_id": {"dataType":"string","required":true},
            "inserted_at": {"dataType":"string","required":true},
            "updated_at": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_AclListItemDto-Array_": {
        "dataType": "refObject",
        "properties": {
            "data": {"dataType":"array","array":{"dataType":"refObject","ref":"AclListItemDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "AclMemberDto": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "role": {"dataType":"string","required":true},
            "eve_character_id": {"dataType":"string"},
            "eve_corporation_id": {"dataType":"string"},
            "eve_alliance_id": {"dataType":"string"},
            "inserted_at": {"dataType":"string","required":true},
            "updated_at": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "AclDto": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "description": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "owner_id": {"dataType":"string","required":true},
            "api_key": {"dataType":"string","required":true},
            "inserted_at": {"dataType":"string","required":true},
            "updated_at": {"dataType":"string","required":true},
            "members": {"dataType":"array","array":{"dataType":"refObject","ref":"AclMemberDto"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_AclDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"AclDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CreateAclFields": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true,"validators":{"minLength":{"value":1},"maxLength":{"value":255}}},
            "description": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":10000}}},
            "owner_eve_id": {"dataType":"string","required":true,"validators":{"pattern":{"errorMsg":"must be decimal digits without a leading zero","value":"^[1-9][0-9]{0,19}$"}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CreateAclRequest": {
        "dataType": "refObject",
        "properties": {
            "acl": {"ref":"CreateAclFields","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "UpdateAclFields": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","validators":{"minLength":{"value":1},"maxLength":{"value":255}}},
            "description": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"maxLength":{"value":10000}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "UpdateAclRequest": {
        "dataType": "refObject",
        "properties": {
            "acl": {"ref":"UpdateAclFields","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DataResponse_AclMemberDto_": {
        "dataType": "refObject",
        "properties": {
            "data": {"ref":"AclMemberDto","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CreateAclMemberFields": {
        "dataType": "refObject",
        "properties": {
            "eve_character_id": {"dataType":"string","validators":{"pattern":{"errorMsg":"must be decimal digits without a leading zero","value":"^[1-9][0-9]{0,19}$"}}},
            "eve_corporation_id": {"dataType":"string","validators":{"pattern":{"errorMsg":"must be decimal digits without a leading zero","value":"^[1-9][0-9]{0,19}$"}}},
            "eve_alliance_id": {"dataType":"string","validators":{"pattern":{"errorMsg":"must be decimal digits without a leading zero","value":"^[1-9][0-9]{0,19}$"}}},
            "role": {"dataType":"string","required":true,"validators":{"maxLength":{"value":16}}},
            "name": {"dataType":"string","validators":{"minLength":{"value":1},"maxLength":{"value":255}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CreateAclMemberRequest": {
        "dataType": "refObject",
        "properties": {
            "member": {"ref":"CreateAclMemberFields","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "UpdateAclMemberFields": {
        "dataType": "refObject",
        "properties": {
            "role": {"dataType":"string","required":true,"validators":{"maxLength":{"value":16}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "UpdateAclMemberRequest": {
        "dataType": "refObject",
        "properties": {
            "member": {"ref":"UpdateAclMemberFields","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "OkResponse": {
        "dataType": "refObject",
        "properties": {
            "ok": {"dataType":"boolean","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
};
const templateService = new ExpressTemplateService(models, {"noImplicitAdditionalProperties":"throw-on-extras","bodyCoercion":false});

// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa




export function RegisterRoutes(app: Router) {

    // ###########################################################################################################
    //  NOTE: If you do not see routes for all of your controllers in this file, then you might not have informed tsoa of where to look
    //      Please look into the "controllerPathGlobs" config option described in the readme: https://github.com/lukeautry/tsoa
    // ###########################################################################################################


    
        const argsStaticInfoController_getSystemStaticInfo: Record<string, TsoaRoute.ParameterSchema> = {
                id: {"in":"query","name":"id","required":true,"dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":0},"maximum":{"value":2147483647}}},
        };
        app.get('/api/common/system-static-info',
            ...(fetchMiddlewares<RequestHandler>(StaticInfoController)),
            ...(fetchMiddlewares<RequestHandler>(StaticInfoController.prototype.getSystemStaticInfo)),

            async function StaticInfoController_getSystemStaticInfo(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsStaticInfoController_getSystemStaticInfo, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<StaticInfoController>(StaticInfoController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getSystemStaticInfo',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSystemsController_listSystems: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                all: {"in":"query","name":"all","dataType":"boolean"},
                _if_none_match: {"in":"header","name":"If-None-Match","dataType":"string"},
        };
        app.get('/api/maps/:map_id/systems',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(SystemsController)),
            ...(fetchMiddlewares<RequestHandler>(SystemsController.prototype.listSystems)),

            async function SystemsController_listSystems(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSystemsController_listSystems, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<SystemsController>(SystemsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listSystems',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSystemsController_getSystem: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                solar_system_id: {"in":"path","name":"solar_system_id","required":true,"dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":0},"maximum":{"value":2147483647}}},
                _if_none_match: {"in":"header","name":"If-None-Match","dataType":"string"},
        };
        app.get('/api/maps/:map_id/systems/:solar_system_id',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(SystemsController)),
            ...(fetchMiddlewares<RequestHandler>(SystemsController.prototype.getSystem)),

            async function SystemsController_getSystem(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSystemsController_getSystem, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<SystemsController>(SystemsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getSystem',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsConnectionsController_listConnections: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                _if_none_match: {"in":"header","name":"If-None-Match","dataType":"string"},
        };
        app.get('/api/maps/:map_id/connections',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(ConnectionsController)),
            ...(fetchMiddlewares<RequestHandler>(ConnectionsController.prototype.listConnections)),

            async function ConnectionsController_listConnections(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsConnectionsController_listConnections, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<ConnectionsController>(ConnectionsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listConnections',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsTrackingController_listTrackedCharacters: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                _if_none_match: {"in":"header","name":"If-None-Match","dataType":"string"},
        };
        app.get('/api/maps/:map_id/tracked-characters',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(TrackingController)),
            ...(fetchMiddlewares<RequestHandler>(TrackingController.prototype.listTrackedCharacters)),

            async function TrackingController_listTrackedCharacters(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsTrackingController_listTrackedCharacters, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<TrackingController>(TrackingController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listTrackedCharacters',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsTrackingController_listUserCharacters: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                _if_none_match: {"in":"header","name":"If-None-Match","dataType":"string"},
        };
        app.get('/api/maps/:map_id/user-characters',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(TrackingController)),
            ...(fetchMiddlewares<RequestHandler>(TrackingController.prototype.listUserCharacters)),

            async function TrackingController_listUserCharacters(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsTrackingController_listUserCharacters, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<TrackingController>(TrackingController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listUserCharacters',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSignaturesController_listSignatures: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                solar_system_id: {"in":"query","name":"solar_system_id","dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":0},"maximum":{"value":2147483647}}},
                _if_none_match: {"in":"header","name":"If-None-Match","dataType":"string"},
        };
        app.get('/api/maps/:map_id/signatures',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(SignaturesController)),
            ...(fetchMiddlewares<RequestHandler>(SignaturesController.prototype.listSignatures)),

            async function SignaturesController_listSignatures(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSignaturesController_listSignatures, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<SignaturesController>(SignaturesController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listSignatures',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsStructuresController_listStructures: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                _if_none_match: {"in":"header","name":"If-None-Match","dataType":"string"},
        };
        app.get('/api/maps/:map_id/structures',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(StructuresController)),
            ...(fetchMiddlewares<RequestHandler>(StructuresController.prototype.listStructures)),

            async function StructuresController_listStructures(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsStructuresController_listStructures, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<StructuresController>(StructuresController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listStructures',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsStructuresController_listStructureTimers: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                system_id: {"in":"query","name":"system_id","dataType":"string"},
                _if_none_match: {"in":"header","name":"If-None-Match","dataType":"string"},
        };
        app.get('/api/maps/:map_id/structure-timers',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(StructuresController)),
            ...(fetchMiddlewares<RequestHandler>(StructuresController.prototype.listStructureTimers)),

            async function StructuresController_listStructureTimers(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsStructuresController_listStructureTimers, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<StructuresController>(StructuresController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listStructureTimers',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSystemEditsController_addSystems: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"dataType":"union","subSchemas":[{"ref":"AddSystemRequest"},{"ref":"AddSystemsRequest"}]},
        };
        app.post('/api/maps/:map_id/systems',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(SystemEditsController)),
            ...(fetchMiddlewares<RequestHandler>(SystemEditsController.prototype.addSystems)),

            async function SystemEditsController_addSystems(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSystemEditsController_addSystems, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<SystemEditsController>(SystemEditsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'addSystems',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 201,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSystemEditsController_updateSystem: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                solar_system_id: {"in":"path","name":"solar_system_id","required":true,"dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":0},"maximum":{"value":2147483647}}},
                body: {"in":"body","name":"body","required":true,"ref":"UpdateSystemRequest"},
        };
        app.patch('/api/maps/:map_id/systems/:solar_system_id',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(SystemEditsController)),
            ...(fetchMiddlewares<RequestHandler>(SystemEditsController.prototype.updateSystem)),

            async function SystemEditsController_updateSystem(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSystemEditsController_updateSystem, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<SystemEditsController>(SystemEditsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'updateSystem',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSystemEditsController_deleteSystem: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                solar_system_id: {"in":"path","name":"solar_system_id","required":true,"dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":0},"maximum":{"value":2147483647}}},
        };
        app.delete('/api/maps/:map_id/systems/:solar_system_id',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(SystemEditsController)),
            ...(fetchMiddlewares<RequestHandler>(SystemEditsController.prototype.deleteSystem)),

            async function SystemEditsController_deleteSystem(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSystemEditsController_deleteSystem, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<SystemEditsController>(SystemEditsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'deleteSystem',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSystemEditsController_deleteSystems: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"DeleteSystemsAndConnectionsRequest"},
        };
        app.delete('/api/maps/:map_id/systems',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(SystemEditsController)),
            ...(fetchMiddlewares<RequestHandler>(SystemEditsController.prototype.deleteSystems)),

            async function SystemEditsController_deleteSystems(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSystemEditsController_deleteSystems, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<SystemEditsController>(SystemEditsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'deleteSystems',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsConnectionEditsController_addConnection: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"AddConnectionRequest"},
        };
        app.post('/api/maps/:map_id/connections',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(ConnectionEditsController)),
            ...(fetchMiddlewares<RequestHandler>(ConnectionEditsController.prototype.addConnection)),

            async function ConnectionEditsController_addConnection(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsConnectionEditsController_addConnection, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<ConnectionEditsController>(ConnectionEditsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'addConnection',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 201,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsConnectionEditsController_updateConnection: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"UpdateConnectionRequest"},
        };
        app.patch('/api/maps/:map_id/connections/:id',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(ConnectionEditsController)),
            ...(fetchMiddlewares<RequestHandler>(ConnectionEditsController.prototype.updateConnection)),

            async function ConnectionEditsController_updateConnection(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsConnectionEditsController_updateConnection, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<ConnectionEditsController>(ConnectionEditsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'updateConnection',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsConnectionEditsController_deleteConnection: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
        };
        app.delete('/api/maps/:map_id/connections/:id',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(ConnectionEditsController)),
            ...(fetchMiddlewares<RequestHandler>(ConnectionEditsController.prototype.deleteConnection)),

            async function ConnectionEditsController_deleteConnection(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsConnectionEditsController_deleteConnection, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<ConnectionEditsController>(ConnectionEditsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'deleteConnection',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsConnectionEditsController_updateConnectionByEnds: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                solar_system_source: {"in":"query","name":"solar_system_source","required":true,"dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":0},"maximum":{"value":2147483647}}},
                solar_system_target: {"in":"query","name":"solar_system_target","required":true,"dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":0},"maximum":{"value":2147483647}}},
                body: {"in":"body","name":"body","required":true,"ref":"UpdateConnectionRequest"},
        };
        app.patch('/api/maps/:map_id/connections',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(ConnectionEditsController)),
            ...(fetchMiddlewares<RequestHandler>(ConnectionEditsController.prototype.updateConnectionByEnds)),

            async function ConnectionEditsController_updateConnectionByEnds(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsConnectionEditsController_updateConnectionByEnds, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<ConnectionEditsController>(ConnectionEditsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'updateConnectionByEnds',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsConnectionEditsController_deleteConnectionByEnds: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                solar_system_source: {"in":"query","name":"solar_system_source","required":true,"dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":0},"maximum":{"value":2147483647}}},
                solar_system_target: {"in":"query","name":"solar_system_target","required":true,"dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":0},"maximum":{"value":2147483647}}},
        };
        app.delete('/api/maps/:map_id/connections',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(ConnectionEditsController)),
            ...(fetchMiddlewares<RequestHandler>(ConnectionEditsController.prototype.deleteConnectionByEnds)),

            async function ConnectionEditsController_deleteConnectionByEnds(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsConnectionEditsController_deleteConnectionByEnds, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<ConnectionEditsController>(ConnectionEditsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'deleteConnectionByEnds',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSignatureEditsController_upsertSignatures: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                solar_system_id: {"in":"path","name":"solar_system_id","required":true,"dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":0},"maximum":{"value":2147483647}}},
                body: {"in":"body","name":"body","required":true,"ref":"UpsertSignaturesRequest"},
        };
        app.put('/api/maps/:map_id/systems/:solar_system_id/signatures',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(SignatureEditsController)),
            ...(fetchMiddlewares<RequestHandler>(SignatureEditsController.prototype.upsertSignatures)),

            async function SignatureEditsController_upsertSignatures(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSignatureEditsController_upsertSignatures, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<SignatureEditsController>(SignatureEditsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'upsertSignatures',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSignatureEditsController_deleteSignature: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                solar_system_id: {"in":"path","name":"solar_system_id","required":true,"dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":0},"maximum":{"value":2147483647}}},
                signature_id: {"in":"path","name":"signature_id","required":true,"dataType":"string"},
        };
        app.delete('/api/maps/:map_id/systems/:solar_system_id/signatures/:signature_id',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(SignatureEditsController)),
            ...(fetchMiddlewares<RequestHandler>(SignatureEditsController.prototype.deleteSignature)),

            async function SignatureEditsController_deleteSignature(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSignatureEditsController_deleteSignature, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<SignatureEditsController>(SignatureEditsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'deleteSignature',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsStructureEditsController_addStructure: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"CreateStructureRequest"},
        };
        app.post('/api/maps/:map_id/structures',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(StructureEditsController)),
            ...(fetchMiddlewares<RequestHandler>(StructureEditsController.prototype.addStructure)),

            async function StructureEditsController_addStructure(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsStructureEditsController_addStructure, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<StructureEditsController>(StructureEditsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'addStructure',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 201,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsStructureEditsController_updateStructure: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"UpdateStructureRequest"},
        };
        app.put('/api/maps/:map_id/structures/:id',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(StructureEditsController)),
            ...(fetchMiddlewares<RequestHandler>(StructureEditsController.prototype.updateStructure)),

            async function StructureEditsController_updateStructure(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsStructureEditsController_updateStructure, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<StructureEditsController>(StructureEditsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'updateStructure',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsStructureEditsController_deleteStructure: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
        };
        app.delete('/api/maps/:map_id/structures/:id',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(StructureEditsController)),
            ...(fetchMiddlewares<RequestHandler>(StructureEditsController.prototype.deleteStructure)),

            async function StructureEditsController_deleteStructure(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsStructureEditsController_deleteStructure, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<StructureEditsController>(StructureEditsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'deleteStructure',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsKillsController_importKills: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"dataType":"union","subSchemas":[{"ref":"KillInput"},{"ref":"KillInputList"},{"ref":"KillsBatchRequest"}]},
        };
        app.post('/api/maps/:map_id/kills',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(KillsController)),
            ...(fetchMiddlewares<RequestHandler>(KillsController.prototype.importKills)),

            async function KillsController_importKills(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsKillsController_importKills, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<KillsController>(KillsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'importKills',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsKillsController_deleteKill: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                killmail_id: {"in":"path","name":"killmail_id","required":true,"dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":1},"maximum":{"value":9007199254740991}}},
        };
        app.delete('/api/maps/:map_id/kills/:killmail_id',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(KillsController)),
            ...(fetchMiddlewares<RequestHandler>(KillsController.prototype.deleteKill)),

            async function KillsController_deleteKill(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsKillsController_deleteKill, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<KillsController>(KillsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'deleteKill',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsTrackingEditsController_setTracked: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                eve_id: {"in":"path","name":"eve_id","required":true,"dataType":"string","validators":{"pattern":{"errorMsg":"must be decimal digits without a leading zero","value":"^[1-9][0-9]{0,19}$"}}},
                body: {"in":"body","name":"body","required":true,"ref":"SetTrackedRequest"},
        };
        app.put('/api/maps/:map_id/tracked-characters/:eve_id',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(TrackingEditsController)),
            ...(fetchMiddlewares<RequestHandler>(TrackingEditsController.prototype.setTracked)),

            async function TrackingEditsController_setTracked(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsTrackingEditsController_setTracked, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<TrackingEditsController>(TrackingEditsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'setTracked',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsActivityController_recordActivity: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"CharacterActivityRequest"},
        };
        app.post('/api/maps/:map_id/character-activity',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(ActivityController)),
            ...(fetchMiddlewares<RequestHandler>(ActivityController.prototype.recordActivity)),

            async function ActivityController_recordActivity(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsActivityController_recordActivity, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<ActivityController>(ActivityController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'recordActivity',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsMapReadController_getSystems: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"query","name":"map_id","dataType":"string"},
                slug: {"in":"query","name":"slug","dataType":"string"},
                all: {"in":"query","name":"all","dataType":"boolean"},
                _if_none_match: {"in":"header","name":"If-None-Match","dataType":"string"},
        };
        app.get('/api/map/systems',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(MapReadController)),
            ...(fetchMiddlewares<RequestHandler>(MapReadController.prototype.getSystems)),

            async function MapReadController_getSystems(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsMapReadController_getSystems, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<MapReadController>(MapReadController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getSystems',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsMapReadController_getSystem: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                id: {"in":"query","name":"id","required":true,"dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":0},"maximum":{"value":2147483647}}},
                map_id: {"in":"query","name":"map_id","dataType":"string"},
                slug: {"in":"query","name":"slug","dataType":"string"},
                _if_none_match: {"in":"header","name":"If-None-Match","dataType":"string"},
        };
        app.get('/api/map/system',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(MapReadController)),
            ...(fetchMiddlewares<RequestHandler>(MapReadController.prototype.getSystem)),

            async function MapReadController_getSystem(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsMapReadController_getSystem, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<MapReadController>(MapReadController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getSystem',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsMapReadController_getConnections: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"query","name":"map_id","dataType":"string"},
                slug: {"in":"query","name":"slug","dataType":"string"},
                _if_none_match: {"in":"header","name":"If-None-Match","dataType":"string"},
        };
        app.get('/api/map/connections',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(MapReadController)),
            ...(fetchMiddlewares<RequestHandler>(MapReadController.prototype.getConnections)),

            async function MapReadController_getConnections(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsMapReadController_getConnections, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<MapReadController>(MapReadController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getConnections',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsMapReadController_getCharacters: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"query","name":"map_id","dataType":"string"},
                slug: {"in":"query","name":"slug","dataType":"string"},
                _if_none_match: {"in":"header","name":"If-None-Match","dataType":"string"},
        };
        app.get('/api/map/characters',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(MapReadController)),
            ...(fetchMiddlewares<RequestHandler>(MapReadController.prototype.getCharacters)),

            async function MapReadController_getCharacters(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsMapReadController_getCharacters, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<MapReadController>(MapReadController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getCharacters',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsMapReadController_getSystemsKills: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"query","name":"map_id","dataType":"string"},
                slug: {"in":"query","name":"slug","dataType":"string"},
                hours: {"in":"query","name":"hours","dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":1},"maximum":{"value":8760}}},
                _if_none_match: {"in":"header","name":"If-None-Match","dataType":"string"},
        };
        app.get('/api/map/systems-kills',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(MapReadController)),
            ...(fetchMiddlewares<RequestHandler>(MapReadController.prototype.getSystemsKills)),

            async function MapReadController_getSystemsKills(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsMapReadController_getSystemsKills, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<MapReadController>(MapReadController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getSystemsKills',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsMapReadController_getCharacterActivity: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"query","name":"map_id","dataType":"string"},
                slug: {"in":"query","name":"slug","dataType":"string"},
                days: {"in":"query","name":"days","dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":1},"maximum":{"value":3650}}},
                _if_none_match: {"in":"header","name":"If-None-Match","dataType":"string"},
        };
        app.get('/api/map/character-activity',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(MapReadController)),
            ...(fetchMiddlewares<RequestHandler>(MapReadController.prototype.getCharacterActivity)),

            async function MapReadController_getCharacterActivity(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsMapReadController_getCharacterActivity, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<MapReadController>(MapReadController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getCharacterActivity',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsMapReadController_getUserCharacters: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"query","name":"map_id","dataType":"string"},
                slug: {"in":"query","name":"slug","dataType":"string"},
                _if_none_match: {"in":"header","name":"If-None-Match","dataType":"string"},
        };
        app.get('/api/map/user_characters',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(MapReadController)),
            ...(fetchMiddlewares<RequestHandler>(MapReadController.prototype.getUserCharacters)),

            async function MapReadController_getUserCharacters(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsMapReadController_getUserCharacters, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<MapReadController>(MapReadController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getUserCharacters',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsMapReadController_getStructureTimers: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"query","name":"map_id","dataType":"string"},
                slug: {"in":"query","name":"slug","dataType":"string"},
                system_id: {"in":"query","name":"system_id","dataType":"string"},
                _if_none_match: {"in":"header","name":"If-None-Match","dataType":"string"},
        };
        app.get('/api/map/structure-timers',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(MapReadController)),
            ...(fetchMiddlewares<RequestHandler>(MapReadController.prototype.getStructureTimers)),

            async function MapReadController_getStructureTimers(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsMapReadController_getStructureTimers, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<MapReadController>(MapReadController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getStructureTimers',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsWebhooksController_toggleWebhooks: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"ToggleWebhooksRequest"},
        };
        app.put('/api/maps/:map_id/webhooks/toggle',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController)),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController.prototype.toggleWebhooks)),

            async function WebhooksController_toggleWebhooks(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsWebhooksController_toggleWebhooks, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<WebhooksController>(WebhooksController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'toggleWebhooks',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsWebhooksController_listWebhooks: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
        };
        app.get('/api/maps/:map_id/webhooks',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController)),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController.prototype.listWebhooks)),

            async function WebhooksController_listWebhooks(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsWebhooksController_listWebhooks, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<WebhooksController>(WebhooksController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listWebhooks',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsWebhooksController_createWebhook: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"CreateWebhookRequest"},
        };
        app.post('/api/maps/:map_id/webhooks',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController)),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController.prototype.createWebhook)),

            async function WebhooksController_createWebhook(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsWebhooksController_createWebhook, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<WebhooksController>(WebhooksController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'createWebhook',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 201,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsWebhooksController_getWebhook: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
        };
        app.get('/api/maps/:map_id/webhooks/:id',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController)),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController.prototype.getWebhook)),

            async function WebhooksController_getWebhook(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsWebhooksController_getWebhook, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<WebhooksController>(WebhooksController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getWebhook',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsWebhooksController_updateWebhook: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"UpdateWebhookRequest"},
        };
        app.put('/api/maps/:map_id/webhooks/:id',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController)),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController.prototype.updateWebhook)),

            async function WebhooksController_updateWebhook(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsWebhooksController_updateWebhook, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<WebhooksController>(WebhooksController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'updateWebhook',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsWebhooksController_deleteWebhook: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
        };
        app.delete('/api/maps/:map_id/webhooks/:id',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController)),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController.prototype.deleteWebhook)),

            async function WebhooksController_deleteWebhook(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsWebhooksController_deleteWebhook, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<WebhooksController>(WebhooksController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'deleteWebhook',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsWebhooksController_rotateWebhookSecret: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
        };
        app.post('/api/maps/:map_id/webhooks/:id/rotate-secret',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController)),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController.prototype.rotateWebhookSecret)),

            async function WebhooksController_rotateWebhookSecret(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsWebhooksController_rotateWebhookSecret, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<WebhooksController>(WebhooksController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'rotateWebhookSecret',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsWebhooksController_listWebhookDeliveries: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
                outcome: {"in":"query","name":"outcome","dataType":"string"},
                before: {"in":"query","name":"before","dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":1},"maximum":{"value":9007199254740991}}},
                limit: {"in":"query","name":"limit","dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":1},"maximum":{"value":200}}},
        };
        app.get('/api/maps/:map_id/webhooks/:id/deliveries',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController)),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController.prototype.listWebhookDeliveries)),

            async function WebhooksController_listWebhookDeliveries(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsWebhooksController_listWebhookDeliveries, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<WebhooksController>(WebhooksController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listWebhookDeliveries',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsWebhooksController_redeliverWebhookEvent: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"RedeliverRequest"},
        };
        app.post('/api/maps/:map_id/webhooks/:id/redeliver',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController)),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController.prototype.redeliverWebhookEvent)),

            async function WebhooksController_redeliverWebhookEvent(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsWebhooksController_redeliverWebhookEvent, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<WebhooksController>(WebhooksController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'redeliverWebhookEvent',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 202,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsWebhooksController_recoverWebhookEvents: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"RecoverRequest"},
        };
        app.post('/api/maps/:map_id/webhooks/:id/recover',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController)),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController.prototype.recoverWebhookEvents)),

            async function WebhooksController_recoverWebhookEvents(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsWebhooksController_recoverWebhookEvents, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<WebhooksController>(WebhooksController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'recoverWebhookEvents',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 202,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsWebhooksController_getWebhookStats: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
                window: {"in":"query","name":"window","dataType":"string"},
        };
        app.get('/api/maps/:map_id/webhooks/:id/stats',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController)),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController.prototype.getWebhookStats)),

            async function WebhooksController_getWebhookStats(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsWebhooksController_getWebhookStats, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<WebhooksController>(WebhooksController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getWebhookStats',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsWebhooksController_pingWebhook: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
        };
        app.post('/api/maps/:map_id/webhooks/:id/ping',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController)),
            ...(fetchMiddlewares<RequestHandler>(WebhooksController.prototype.pingWebhook)),

            async function WebhooksController_pingWebhook(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsWebhooksController_pingWebhook, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<WebhooksController>(WebhooksController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'pingWebhook',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsPresenceController_getPresence: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
        };
        app.get('/api/maps/:map_id/presence',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(PresenceController)),
            ...(fetchMiddlewares<RequestHandler>(PresenceController.prototype.getPresence)),

            async function PresenceController_getPresence(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsPresenceController_getPresence, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<PresenceController>(PresenceController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getPresence',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsRouteFinderController_findClosest: Record<string, TsoaRoute.ParameterSchema> = {
                body: {"in":"body","name":"body","required":true,"ref":"FindClosestRequest"},
        };
        app.post('/route/findClosest',
            ...(fetchMiddlewares<RequestHandler>(RouteFinderController)),
            ...(fetchMiddlewares<RequestHandler>(RouteFinderController.prototype.findClosest)),

            async function RouteFinderController_findClosest(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsRouteFinderController_findClosest, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<RouteFinderController>(RouteFinderController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'findClosest',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSignatureLinksController_linkSignature: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"LinkSignatureRequest"},
        };
        app.post('/api/maps/:map_id/signatures/:id/link',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(SignatureLinksController)),
            ...(fetchMiddlewares<RequestHandler>(SignatureLinksController.prototype.linkSignature)),

            async function SignatureLinksController_linkSignature(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSignatureLinksController_linkSignature, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<SignatureLinksController>(SignatureLinksController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'linkSignature',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSignatureLinksController_unlinkSignature: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
        };
        app.delete('/api/maps/:map_id/signatures/:id/link',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(SignatureLinksController)),
            ...(fetchMiddlewares<RequestHandler>(SignatureLinksController.prototype.unlinkSignature)),

            async function SignatureLinksController_unlinkSignature(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSignatureLinksController_unlinkSignature, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<SignatureLinksController>(SignatureLinksController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'unlinkSignature',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsMapRoutesController_getRoute: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                origin: {"in":"query","name":"origin","required":true,"dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":0},"maximum":{"value":2147483647}}},
                to: {"in":"query","name":"to","required":true,"dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":0},"maximum":{"value":2147483647}}},
                flag: {"in":"query","name":"flag","ref":"RouteFlag"},
        };
        app.get('/api/maps/:map_id/routes',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(MapRoutesController)),
            ...(fetchMiddlewares<RequestHandler>(MapRoutesController.prototype.getRoute)),

            async function MapRoutesController_getRoute(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsMapRoutesController_getRoute, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<MapRoutesController>(MapRoutesController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getRoute',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsRallyPointsController_listRallyPoints: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                _if_none_match: {"in":"header","name":"If-None-Match","dataType":"string"},
        };
        app.get('/api/maps/:map_id/rally-points',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(RallyPointsController)),
            ...(fetchMiddlewares<RequestHandler>(RallyPointsController.prototype.listRallyPoints)),

            async function RallyPointsController_listRallyPoints(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsRallyPointsController_listRallyPoints, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<RallyPointsController>(RallyPointsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listRallyPoints',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsRallyPointsController_addRallyPoint: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"AddRallyPointRequest"},
        };
        app.post('/api/maps/:map_id/rally-points',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(RallyPointsController)),
            ...(fetchMiddlewares<RequestHandler>(RallyPointsController.prototype.addRallyPoint)),

            async function RallyPointsController_addRallyPoint(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsRallyPointsController_addRallyPoint, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<RallyPointsController>(RallyPointsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'addRallyPoint',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 201,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsRallyPointsController_deleteRallyPoint: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
        };
        app.delete('/api/maps/:map_id/rally-points/:id',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(RallyPointsController)),
            ...(fetchMiddlewares<RequestHandler>(RallyPointsController.prototype.deleteRallyPoint)),

            async function RallyPointsController_deleteRallyPoint(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsRallyPointsController_deleteRallyPoint, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<RallyPointsController>(RallyPointsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'deleteRallyPoint',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsEventsController_listEvents: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                after: {"in":"query","name":"after","dataType":"string"},
                limit: {"in":"query","name":"limit","dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":1},"maximum":{"value":1000}}},
                events: {"in":"query","name":"events","dataType":"string"},
                systems: {"in":"query","name":"systems","dataType":"string"},
        };
        app.get('/api/maps/:map_id/events',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(EventsController)),
            ...(fetchMiddlewares<RequestHandler>(EventsController.prototype.listEvents)),

            async function EventsController_listEvents(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsEventsController_listEvents, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<EventsController>(EventsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listEvents',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAuditController_getAudit: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                period: {"in":"query","name":"period","required":true,"ref":"AuditPeriod"},
                map_id: {"in":"query","name":"map_id","dataType":"string"},
                slug: {"in":"query","name":"slug","dataType":"string"},
                limit: {"in":"query","name":"limit","dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"value":1},"maximum":{"value":1000}}},
                _if_none_match: {"in":"header","name":"If-None-Match","dataType":"string"},
        };
        app.get('/api/map/audit',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AuditController)),
            ...(fetchMiddlewares<RequestHandler>(AuditController.prototype.getAudit)),

            async function AuditController_getAudit(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAuditController_getAudit, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AuditController>(AuditController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getAudit',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsEventCatalogController_getEventCatalog: Record<string, TsoaRoute.ParameterSchema> = {
        };
        app.get('/api/events/catalog',
            ...(fetchMiddlewares<RequestHandler>(EventCatalogController)),
            ...(fetchMiddlewares<RequestHandler>(EventCatalogController.prototype.getEventCatalog)),

            async function EventCatalogController_getEventCatalog(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsEventCatalogController_getEventCatalog, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<EventCatalogController>(EventCatalogController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getEventCatalog',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsCharactersController_listCharacters: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
        };
        app.get('/api/characters',
            authenticateMiddleware([{"any_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(CharactersController)),
            ...(fetchMiddlewares<RequestHandler>(CharactersController.prototype.listCharacters)),

            async function CharactersController_listCharacters(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsCharactersController_listCharacters, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<CharactersController>(CharactersController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listCharacters',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAdminController_createUser: Record<string, TsoaRoute.ParameterSchema> = {
                body: {"in":"body","name":"body","required":true,"ref":"CreateUserRequest"},
        };
        app.post('/api/admin/users',
            authenticateMiddleware([{"admin_token":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AdminController)),
            ...(fetchMiddlewares<RequestHandler>(AdminController.prototype.createUser)),

            async function AdminController_createUser(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAdminController_createUser, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AdminController>(AdminController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'createUser',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 201,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAdminController_listUsers: Record<string, TsoaRoute.ParameterSchema> = {
        };
        app.get('/api/admin/users',
            authenticateMiddleware([{"admin_token":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AdminController)),
            ...(fetchMiddlewares<RequestHandler>(AdminController.prototype.listUsers)),

            async function AdminController_listUsers(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAdminController_listUsers, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AdminController>(AdminController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listUsers',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAdminController_getUser: Record<string, TsoaRoute.ParameterSchema> = {
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
        };
        app.get('/api/admin/users/:id',
            authenticateMiddleware([{"admin_token":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AdminController)),
            ...(fetchMiddlewares<RequestHandler>(AdminController.prototype.getUser)),

            async function AdminController_getUser(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAdminController_getUser, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AdminController>(AdminController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getUser',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAdminController_setMainCharacter: Record<string, TsoaRoute.ParameterSchema> = {
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"SetMainCharacterRequest"},
        };
        app.put('/api/admin/users/:id/main-character',
            authenticateMiddleware([{"admin_token":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AdminController)),
            ...(fetchMiddlewares<RequestHandler>(AdminController.prototype.setMainCharacter)),

            async function AdminController_setMainCharacter(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAdminController_setMainCharacter, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AdminController>(AdminController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'setMainCharacter',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAdminController_upsertCharacter: Record<string, TsoaRoute.ParameterSchema> = {
                body: {"in":"body","name":"body","required":true,"ref":"UpsertCharacterRequest"},
        };
        app.put('/api/admin/characters',
            authenticateMiddleware([{"admin_token":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AdminController)),
            ...(fetchMiddlewares<RequestHandler>(AdminController.prototype.upsertCharacter)),

            async function AdminController_upsertCharacter(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAdminController_upsertCharacter, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AdminController>(AdminController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'upsertCharacter',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAdminController_listAdminCharacters: Record<string, TsoaRoute.ParameterSchema> = {
        };
        app.get('/api/admin/characters',
            authenticateMiddleware([{"admin_token":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AdminController)),
            ...(fetchMiddlewares<RequestHandler>(AdminController.prototype.listAdminCharacters)),

            async function AdminController_listAdminCharacters(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAdminController_listAdminCharacters, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AdminController>(AdminController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listAdminCharacters',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAdminController_createMap: Record<string, TsoaRoute.ParameterSchema> = {
                body: {"in":"body","name":"body","required":true,"ref":"CreateMapRequest"},
        };
        app.post('/api/admin/maps',
            authenticateMiddleware([{"admin_token":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AdminController)),
            ...(fetchMiddlewares<RequestHandler>(AdminController.prototype.createMap)),

            async function AdminController_createMap(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAdminController_createMap, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AdminController>(AdminController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'createMap',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 201,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAdminController_listMaps: Record<string, TsoaRoute.ParameterSchema> = {
        };
        app.get('/api/admin/maps',
            authenticateMiddleware([{"admin_token":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AdminController)),
            ...(fetchMiddlewares<RequestHandler>(AdminController.prototype.listMaps)),

            async function AdminController_listMaps(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAdminController_listMaps, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AdminController>(AdminController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listMaps',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAdminController_getMap: Record<string, TsoaRoute.ParameterSchema> = {
                map: {"in":"path","name":"map","required":true,"dataType":"string"},
        };
        app.get('/api/admin/maps/:map',
            authenticateMiddleware([{"admin_token":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AdminController)),
            ...(fetchMiddlewares<RequestHandler>(AdminController.prototype.getMap)),

            async function AdminController_getMap(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAdminController_getMap, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AdminController>(AdminController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getMap',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAdminController_issueMapKey: Record<string, TsoaRoute.ParameterSchema> = {
                map: {"in":"path","name":"map","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"IssueMapKeyRequest"},
        };
        app.post('/api/admin/maps/:map/keys',
            authenticateMiddleware([{"admin_token":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AdminController)),
            ...(fetchMiddlewares<RequestHandler>(AdminController.prototype.issueMapKey)),

            async function AdminController_issueMapKey(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAdminController_issueMapKey, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AdminController>(AdminController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'issueMapKey',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 201,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAdminController_listMapKeys: Record<string, TsoaRoute.ParameterSchema> = {
                map: {"in":"path","name":"map","required":true,"dataType":"string"},
        };
        app.get('/api/admin/maps/:map/keys',
            authenticateMiddleware([{"admin_token":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AdminController)),
            ...(fetchMiddlewares<RequestHandler>(AdminController.prototype.listMapKeys)),

            async function AdminController_listMapKeys(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAdminController_listMapKeys, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AdminController>(AdminController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listMapKeys',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAdminController_revokeMapKey: Record<string, TsoaRoute.ParameterSchema> = {
                map: {"in":"path","name":"map","required":true,"dataType":"string"},
                key_id: {"in":"path","name":"key_id","required":true,"dataType":"string"},
        };
        app.delete('/api/admin/maps/:map/keys/:key_id',
            authenticateMiddleware([{"admin_token":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AdminController)),
            ...(fetchMiddlewares<RequestHandler>(AdminController.prototype.revokeMapKey)),

            async function AdminController_revokeMapKey(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAdminController_revokeMapKey, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AdminController>(AdminController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'revokeMapKey',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAdminController_trackCharacter: Record<string, TsoaRoute.ParameterSchema> = {
                map: {"in":"path","name":"map","required":true,"dataType":"string"},
                eve_id: {"in":"path","name":"eve_id","required":true,"dataType":"string","validators":{"pattern":{"errorMsg":"must be decimal digits without a leading zero","value":"^[1-9][0-9]{0,19}$"}}},
                body: {"in":"body","name":"body","required":true,"ref":"TrackCharacterRequest"},
        };
        app.put('/api/admin/maps/:map/characters/:eve_id',
            authenticateMiddleware([{"admin_token":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AdminController)),
            ...(fetchMiddlewares<RequestHandler>(AdminController.prototype.trackCharacter)),

            async function AdminController_trackCharacter(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAdminController_trackCharacter, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AdminController>(AdminController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'trackCharacter',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAdminController_untrackCharacter: Record<string, TsoaRoute.ParameterSchema> = {
                map: {"in":"path","name":"map","required":true,"dataType":"string"},
                eve_id: {"in":"path","name":"eve_id","required":true,"dataType":"string","validators":{"pattern":{"errorMsg":"must be decimal digits without a leading zero","value":"^[1-9][0-9]{0,19}$"}}},
        };
        app.delete('/api/admin/maps/:map/characters/:eve_id',
            authenticateMiddleware([{"admin_token":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AdminController)),
            ...(fetchMiddlewares<RequestHandler>(AdminController.prototype.untrackCharacter)),

            async function AdminController_untrackCharacter(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAdminController_untrackCharacter, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AdminController>(AdminController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'untrackCharacter',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsMapDuplicateController_duplicateMap: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"path","name":"map_id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"DuplicateMapRequest"},
        };
        app.post('/api/maps/:map_id/duplicate',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(MapDuplicateController)),
            ...(fetchMiddlewares<RequestHandler>(MapDuplicateController.prototype.duplicateMap)),

            async function MapDuplicateController_duplicateMap(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsMapDuplicateController_duplicateMap, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<MapDuplicateController>(MapDuplicateController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'duplicateMap',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 201,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsMapAclsController_listMapAcls: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                map_id: {"in":"query","name":"map_id","dataType":"string"},
                slug: {"in":"query","name":"slug","dataType":"string"},
                _if_none_match: {"in":"header","name":"If-None-Match","dataType":"string"},
        };
        app.get('/api/map/acls',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(MapAclsController)),
            ...(fetchMiddlewares<RequestHandler>(MapAclsController.prototype.listMapAcls)),

            async function MapAclsController_listMapAcls(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsMapAclsController_listMapAcls, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<MapAclsController>(MapAclsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listMapAcls',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsMapAclsController_createMapAcl: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                body: {"in":"body","name":"body","required":true,"ref":"CreateAclRequest"},
                map_id: {"in":"query","name":"map_id","dataType":"string"},
                slug: {"in":"query","name":"slug","dataType":"string"},
        };
        app.post('/api/map/acls',
            authenticateMiddleware([{"map_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(MapAclsController)),
            ...(fetchMiddlewares<RequestHandler>(MapAclsController.prototype.createMapAcl)),

            async function MapAclsController_createMapAcl(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsMapAclsController_createMapAcl, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<MapAclsController>(MapAclsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'createMapAcl',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAclsController_getAcl: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
        };
        app.get('/api/acls/:id',
            authenticateMiddleware([{"acl_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AclsController)),
            ...(fetchMiddlewares<RequestHandler>(AclsController.prototype.getAcl)),

            async function AclsController_getAcl(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAclsController_getAcl, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AclsController>(AclsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getAcl',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAclsController_updateAcl: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                id: {"in":"path","name":"id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"UpdateAclRequest"},
        };
        app.put('/api/acls/:id',
            authenticateMiddleware([{"acl_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AclsController)),
            ...(fetchMiddlewares<RequestHandler>(AclsController.prototype.updateAcl)),

            async function AclsController_updateAcl(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAclsController_updateAcl, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AclsController>(AclsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'updateAcl',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAclsController_addAclMember: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                acl_id: {"in":"path","name":"acl_id","required":true,"dataType":"string"},
                body: {"in":"body","name":"body","required":true,"ref":"CreateAclMemberRequest"},
        };
        app.post('/api/acls/:acl_id/members',
            authenticateMiddleware([{"acl_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AclsController)),
            ...(fetchMiddlewares<RequestHandler>(AclsController.prototype.addAclMember)),

            async function AclsController_addAclMember(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAclsController_addAclMember, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AclsController>(AclsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'addAclMember',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAclsController_updateAclMember: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                acl_id: {"in":"path","name":"acl_id","required":true,"dataType":"string"},
                member_id: {"in":"path","name":"member_id","required":true,"dataType":"string","validators":{"pattern":{"errorMsg":"must be decimal digits without a leading zero","value":"^[1-9][0-9]{0,19}$"}}},
                body: {"in":"body","name":"body","required":true,"ref":"UpdateAclMemberRequest"},
        };
        app.put('/api/acls/:acl_id/members/:member_id',
            authenticateMiddleware([{"acl_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AclsController)),
            ...(fetchMiddlewares<RequestHandler>(AclsController.prototype.updateAclMember)),

            async function AclsController_updateAclMember(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAclsController_updateAclMember, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AclsController>(AclsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'updateAclMember',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsAclsController_deleteAclMember: Record<string, TsoaRoute.ParameterSchema> = {
                req: {"in":"request","name":"req","required":true,"dataType":"object"},
                acl_id: {"in":"path","name":"acl_id","required":true,"dataType":"string"},
                member_id: {"in":"path","name":"member_id","required":true,"dataType":"string","validators":{"pattern":{"errorMsg":"must be decimal digits without a leading zero","value":"^[1-9][0-9]{0,19}$"}}},
        };
        app.delete('/api/acls/:acl_id/members/:member_id',
            authenticateMiddleware([{"acl_key":[]}]),
            ...(fetchMiddlewares<RequestHandler>(AclsController)),
            ...(fetchMiddlewares<RequestHandler>(AclsController.prototype.deleteAclMember)),

            async function AclsController_deleteAclMember(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsAclsController_deleteAclMember, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<AclsController>(AclsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'deleteAclMember',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa


    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

    function authenticateMiddleware(security: TsoaRoute.Security[] = []) {
        return async function runAuthenticationMiddleware(request: any, response: any, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            // keep track of failed auth attempts so we can hand back the most
            // recent one.  This behavior was previously existing so preserving it
            // here
            const failedAttempts: any[] = [];
            const pushAndRethrow = (error: any) => {
                failedAttempts.push(error);
                throw error;
            };

            const secMethodOrPromises: Promise<any>[] = [];
            for (const secMethod of security) {
                if (Object.keys(secMethod).length > 1) {
                    const secMethodAndPromises: Promise<any>[] = [];

                    for (const name in secMethod) {
                        secMethodAndPromises.push(
                            expressAuthenticationRecasted(request, name, secMethod[name], response)
                                .catch(pushAndRethrow)
                        );
                    }

                    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

                    secMethodOrPromises.push(Promise.all(secMethodAndPromises)
                        .then(users => { return users[0]; }));
                } else {
                    for (const name in secMethod) {
                        secMethodOrPromises.push(
                            expressAuthenticationRecasted(request, name, secMethod[name], response)
                                .catch(pushAndRethrow)
                        );
                    }
                }
            }

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            try {
                request['user'] = await Promise.any(secMethodOrPromises);

                // Response was sent in middleware, abort
                if (response.writableEnded) {
                    return;
                }

                next();
            }
            catch(err) {
                // Show most recent error as response
                const error = failedAttempts.pop();
                error.status = error.status || 401;

                // Response was sent in middleware, abort
                if (response.writableEnded) {
                    return;
                }
                next(error);
            }

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        }
    }

    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
}

// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
