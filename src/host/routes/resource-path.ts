// The {group}/{kind}/{name} path parameters of the resource routes.
import { pathParameter, type RouteRequest } from '../http/route-request.js';
import type { ResourcePath } from '../resources/exact-resource.js';

export function resourcePath(request: RouteRequest): ResourcePath {
  return {
    group: pathParameter(request, 'group'),
    kind: pathParameter(request, 'kind'),
    name: pathParameter(request, 'name'),
  };
}
