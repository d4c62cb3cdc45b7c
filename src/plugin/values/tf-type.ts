// Terraform's type system (cty types) as plain data, plus its JSON spelling, which is what
// schemas carry in `Attribute.type` and what `dynamic` values carry next to their value.

export type TfType =
  | { readonly kind: 'string' }
  | { readonly kind: 'number' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'dynamic' }
  | { readonly kind: 'list'; readonly element: TfType }
  | { readonly kind: 'set'; readonly element: TfType }
  | { readonly kind: 'map'; readonly element: TfType }
  | { readonly kind: 'object'; readonly attributes: Readonly<Record<string, TfType>> }
  | { readonly kind: 'tuple'; readonly elements: readonly TfType[] };

export const T = {
  string: { kind: 'string' } as TfType,
  number: { kind: 'number' } as TfType,
  bool: { kind: 'bool' } as TfType,
  dynamic: { kind: 'dynamic' } as TfType,
  list: (element: TfType): TfType => ({ kind: 'list', element }),
  set: (element: TfType): TfType => ({ kind: 'set', element }),
  map: (element: TfType): TfType => ({ kind: 'map', element }),
  object: (attributes: Record<string, TfType>): TfType => ({ kind: 'object', attributes }),
  tuple: (elements: TfType[]): TfType => ({ kind: 'tuple', elements }),
};

export type TypeJson = string | [string, unknown] | [string, unknown, unknown];

/** The JSON form of a type (`"string"`, `["list","number"]`, `["object",{...}]`). */
export function typeToJson(type: TfType): unknown {
  switch (type.kind) {
    case 'string':
    case 'number':
    case 'bool':
    case 'dynamic':
      return type.kind;
    case 'list':
    case 'set':
    case 'map':
      return [type.kind, typeToJson(type.element)];
    case 'object': {
      const attrs: Record<string, unknown> = {};
      for (const name of Object.keys(type.attributes).sort()) attrs[name] = typeToJson(type.attributes[name]!);
      return ['object', attrs];
    }
    case 'tuple':
      return ['tuple', type.elements.map(typeToJson)];
  }
}

export function typeFromJson(json: unknown): TfType {
  if (typeof json === 'string') {
    if (json === 'string' || json === 'number' || json === 'bool' || json === 'dynamic') return { kind: json };
    throw new TypeError(`unknown primitive type ${JSON.stringify(json)}`);
  }
  if (Array.isArray(json) && json.length >= 2 && typeof json[0] === 'string') {
    const [kind, arg] = json as [string, unknown];
    switch (kind) {
      case 'list':
      case 'set':
      case 'map':
        return { kind, element: typeFromJson(arg) };
      case 'object': {
        if (typeof arg !== 'object' || arg === null || Array.isArray(arg)) break;
        const attributes: Record<string, TfType> = {};
        for (const [name, t] of Object.entries(arg)) attributes[name] = typeFromJson(t);
        return { kind, attributes };
      }
      case 'tuple':
        if (!Array.isArray(arg)) break;
        return { kind, elements: arg.map(typeFromJson) };
    }
  }
  throw new TypeError(`invalid type JSON ${JSON.stringify(json)}`);
}

export function typeEquals(a: TfType, b: TfType): boolean {
  return JSON.stringify(typeToJson(a)) === JSON.stringify(typeToJson(b));
}
