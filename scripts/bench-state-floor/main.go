// The state floor of the benchmark (scripts/bench.mjs --state-floor): a Go provider with our
// provider's exact schema, resource identity and state, that does no work of its own — no Host,
// no validation, no journal. It answers each RPC with what core needs and nothing else: a
// refresh returns the state it was given, a create fills in locally what the Host would, a
// delete forgets. So the time core spends driving it is core's cost of our schema and state on
// top of the cheapest Go provider there can be; with variants of the schema (STATE_FLOOR_SCHEMA_FILE,
// written by the benchmark) it is what each part of our state costs core. Not a provider:
// nothing here is shipped.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

type jsonAttr struct {
	Type       json.RawMessage `json:"type"`
	NestedType *struct {
		Attributes  map[string]jsonAttr `json:"attributes"`
		NestingMode string              `json:"nesting_mode"`
	} `json:"nested_type"`
	Description       string `json:"description"`
	Required          bool   `json:"required"`
	Optional          bool   `json:"optional"`
	Computed          bool   `json:"computed"`
	Sensitive         bool   `json:"sensitive"`
	RequiredForImport bool   `json:"required_for_import"`
	OptionalForImport bool   `json:"optional_for_import"`
}
type jsonBlock struct {
	Attributes map[string]jsonAttr `json:"attributes"`
	BlockTypes map[string]struct {
		NestingMode string    `json:"nesting_mode"`
		Block       jsonBlock `json:"block"`
	} `json:"block_types"`
	Description string `json:"description"`
}
type jsonSchema struct {
	Version int64     `json:"version"`
	Block   jsonBlock `json:"block"`
}
type jsonProvider struct {
	Provider                jsonSchema            `json:"provider"`
	ResourceSchemas         map[string]jsonSchema `json:"resource_schemas"`
	DataSourceSchemas       map[string]jsonSchema `json:"data_source_schemas"`
	ResourceIdentitySchemas map[string]struct {
		Version    int64               `json:"version"`
		Attributes map[string]jsonAttr `json:"attributes"`
	} `json:"resource_identity_schemas"`
}

func ctyType(raw json.RawMessage) tftypes.Type {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "string":
			return tftypes.String
		case "number":
			return tftypes.Number
		case "bool":
			return tftypes.Bool
		case "dynamic":
			return tftypes.DynamicPseudoType
		}
		panic("type " + s)
	}
	var arr []json.RawMessage
	if err := json.Unmarshal(raw, &arr); err != nil {
		panic(err)
	}
	var kind string
	json.Unmarshal(arr[0], &kind)
	switch kind {
	case "list":
		return tftypes.List{ElementType: ctyType(arr[1])}
	case "set":
		return tftypes.Set{ElementType: ctyType(arr[1])}
	case "map":
		return tftypes.Map{ElementType: ctyType(arr[1])}
	case "object":
		var attrs map[string]json.RawMessage
		json.Unmarshal(arr[1], &attrs)
		o := tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}
		for k, v := range attrs {
			o.AttributeTypes[k] = ctyType(v)
		}
		return o
	}
	panic("kind " + kind)
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func attr(name string, a jsonAttr) *tfprotov6.SchemaAttribute {
	out := &tfprotov6.SchemaAttribute{Name: name, Description: a.Description, Required: a.Required, Optional: a.Optional, Computed: a.Computed, Sensitive: a.Sensitive}
	if a.NestedType != nil {
		obj := &tfprotov6.SchemaObject{Nesting: tfprotov6.SchemaObjectNestingModeSingle}
		for _, k := range sortedKeys(a.NestedType.Attributes) {
			obj.Attributes = append(obj.Attributes, attr(k, a.NestedType.Attributes[k]))
		}
		out.NestedType = obj
	} else {
		out.Type = ctyType(a.Type)
	}
	return out
}

func block(b jsonBlock) *tfprotov6.SchemaBlock {
	out := &tfprotov6.SchemaBlock{Description: b.Description}
	for _, k := range sortedKeys(b.Attributes) {
		out.Attributes = append(out.Attributes, attr(k, b.Attributes[k]))
	}
	for _, k := range sortedKeys(b.BlockTypes) {
		bt := b.BlockTypes[k]
		if bt.NestingMode != "single" {
			panic("nesting " + bt.NestingMode)
		}
		out.BlockTypes = append(out.BlockTypes, &tfprotov6.SchemaNestedBlock{TypeName: k, Block: block(bt.Block), Nesting: tfprotov6.SchemaNestedBlockNestingModeSingle})
	}
	return out
}

type stub struct {
	schema     *tfprotov6.GetProviderSchemaResponse
	identities *tfprotov6.GetResourceIdentitySchemasResponse
	types      map[string]tftypes.Type
	formRef    map[string]string // STATE_FLOOR_FORM_REF: the FormRef our provider records
	space      string
}

func load() *stub {
	raw, err := os.ReadFile(os.Getenv("STATE_FLOOR_SCHEMA_FILE"))
	if err != nil {
		panic(err)
	}
	var doc struct {
		ProviderSchemas map[string]jsonProvider `json:"provider_schemas"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		panic(err)
	}
	var p jsonProvider
	for _, v := range doc.ProviderSchemas {
		p = v
	}
	s := &stub{types: map[string]tftypes.Type{}}
	s.schema = &tfprotov6.GetProviderSchemaResponse{
		Provider:           &tfprotov6.Schema{Version: p.Provider.Version, Block: block(p.Provider.Block)},
		ResourceSchemas:    map[string]*tfprotov6.Schema{},
		DataSourceSchemas:  map[string]*tfprotov6.Schema{},
		ServerCapabilities: &tfprotov6.ServerCapabilities{GetProviderSchemaOptional: true, MoveResourceState: true},
	}
	for k, v := range p.ResourceSchemas {
		sc := &tfprotov6.Schema{Version: v.Version, Block: block(v.Block)}
		s.schema.ResourceSchemas[k] = sc
		s.types[k] = sc.ValueType()
	}
	for k, v := range p.DataSourceSchemas {
		s.schema.DataSourceSchemas[k] = &tfprotov6.Schema{Version: v.Version, Block: block(v.Block)}
	}
	s.identities = &tfprotov6.GetResourceIdentitySchemasResponse{IdentitySchemas: map[string]*tfprotov6.ResourceIdentitySchema{}}
	for k, v := range p.ResourceIdentitySchemas {
		is := &tfprotov6.ResourceIdentitySchema{Version: v.Version}
		for _, n := range sortedKeys(v.Attributes) {
			a := v.Attributes[n]
			is.IdentityAttributes = append(is.IdentityAttributes, &tfprotov6.ResourceIdentitySchemaAttribute{Name: n, Type: ctyType(a.Type), RequiredForImport: a.RequiredForImport, OptionalForImport: a.OptionalForImport, Description: a.Description})
		}
		s.identities.IdentitySchemas[k] = is
	}
	if err := json.Unmarshal([]byte(os.Getenv("STATE_FLOOR_FORM_REF")), &s.formRef); err != nil {
		panic("STATE_FLOOR_FORM_REF: " + err.Error())
	}
	s.space = os.Getenv("TAKOFORM_SPACE")
	return s
}

func diag(err error) []*tfprotov6.Diagnostic {
	return []*tfprotov6.Diagnostic{{Severity: tfprotov6.DiagnosticSeverityError, Summary: err.Error()}}
}

func (s *stub) GetMetadata(context.Context, *tfprotov6.GetMetadataRequest) (*tfprotov6.GetMetadataResponse, error) {
	r := &tfprotov6.GetMetadataResponse{ServerCapabilities: s.schema.ServerCapabilities}
	for k := range s.schema.ResourceSchemas {
		r.Resources = append(r.Resources, tfprotov6.ResourceMetadata{TypeName: k})
	}
	for k := range s.schema.DataSourceSchemas {
		r.DataSources = append(r.DataSources, tfprotov6.DataSourceMetadata{TypeName: k})
	}
	return r, nil
}
func (s *stub) GetProviderSchema(context.Context, *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	return s.schema, nil
}
func (s *stub) GetResourceIdentitySchemas(context.Context, *tfprotov6.GetResourceIdentitySchemasRequest) (*tfprotov6.GetResourceIdentitySchemasResponse, error) {
	return s.identities, nil
}
func (s *stub) ValidateProviderConfig(_ context.Context, r *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	return &tfprotov6.ValidateProviderConfigResponse{PreparedConfig: r.Config}, nil
}
func (s *stub) ConfigureProvider(context.Context, *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	return &tfprotov6.ConfigureProviderResponse{}, nil
}
func (s *stub) StopProvider(context.Context, *tfprotov6.StopProviderRequest) (*tfprotov6.StopProviderResponse, error) {
	return &tfprotov6.StopProviderResponse{}, nil
}
func (s *stub) ValidateResourceConfig(context.Context, *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	return &tfprotov6.ValidateResourceConfigResponse{}, nil
}
func (s *stub) UpgradeResourceState(_ context.Context, r *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	typ := s.types[r.TypeName]
	v, err := r.RawState.UnmarshalWithOpts(typ, tfprotov6.UnmarshalOpts{ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true}})
	if err != nil {
		return &tfprotov6.UpgradeResourceStateResponse{Diagnostics: diag(err)}, nil
	}
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		return &tfprotov6.UpgradeResourceStateResponse{Diagnostics: diag(err)}, nil
	}
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &dv}, nil
}
func (s *stub) ReadResource(_ context.Context, r *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	// Decoded as any provider would, to know what to ask for; nothing is asked.
	if _, err := r.CurrentState.Unmarshal(s.types[r.TypeName]); err != nil {
		return &tfprotov6.ReadResourceResponse{Diagnostics: diag(err)}, nil
	}
	return &tfprotov6.ReadResourceResponse{NewState: r.CurrentState, Private: r.Private, NewIdentity: r.CurrentIdentity}, nil
}
func (s *stub) PlanResourceChange(_ context.Context, r *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	typ := s.types[r.TypeName]
	prior, err := r.PriorState.Unmarshal(typ)
	if err != nil {
		return &tfprotov6.PlanResourceChangeResponse{Diagnostics: diag(err)}, nil
	}
	if prior.IsNull() {
		// A create, planned as ours plans it: what the Host decides is unknown until apply.
		proposed, err := r.ProposedNewState.Unmarshal(typ)
		if err != nil || proposed.IsNull() {
			return &tfprotov6.PlanResourceChangeResponse{PlannedState: r.ProposedNewState}, nil
		}
		var attrs map[string]tftypes.Value
		proposed.As(&attrs)
		ot := typ.(tftypes.Object)
		for _, k := range []string{"id", "uid", "generation", "revision", "conditions", "conditions_json", "ready", "outputs_json", "pending_operation", "mode"} {
			if t, ok := ot.AttributeTypes[k]; ok && (k != "mode" || attrs[k].IsNull()) {
				attrs[k] = tftypes.NewValue(t, tftypes.UnknownValue)
			}
		}
		if t, ok := ot.AttributeTypes["space"]; ok && attrs["space"].IsNull() {
			attrs["space"] = tftypes.NewValue(t, s.space)
		}
		if t, ok := ot.AttributeTypes["form_ref"]; ok {
			attrs["form_ref"] = s.formRefValue(t)
		}
		dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
		if err != nil {
			return &tfprotov6.PlanResourceChangeResponse{Diagnostics: diag(err)}, nil
		}
		return &tfprotov6.PlanResourceChangeResponse{PlannedState: &dv}, nil
	}
	return &tfprotov6.PlanResourceChangeResponse{PlannedState: r.ProposedNewState, PlannedPrivate: r.PriorPrivate, PlannedIdentity: r.PriorIdentity}, nil
}
func (s *stub) ApplyResourceChange(_ context.Context, r *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	typ := s.types[r.TypeName]
	planned, err := r.PlannedState.Unmarshal(typ)
	if err != nil {
		return &tfprotov6.ApplyResourceChangeResponse{Diagnostics: diag(err)}, nil
	}
	if !planned.IsNull() {
		prior, _ := r.PriorState.Unmarshal(typ)
		if !prior.IsNull() {
			return &tfprotov6.ApplyResourceChangeResponse{NewState: r.PlannedState, Private: r.PlannedPrivate, NewIdentity: r.PlannedIdentity}, nil
		}
		return s.create(r.TypeName, typ, planned)
	}
	return &tfprotov6.ApplyResourceChangeResponse{NewState: r.PlannedState}, nil // a delete: nothing to forget but the state
}
func (s *stub) ImportResourceState(context.Context, *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	return nil, fmt.Errorf("unsupported")
}
func (s *stub) MoveResourceState(context.Context, *tfprotov6.MoveResourceStateRequest) (*tfprotov6.MoveResourceStateResponse, error) {
	return nil, fmt.Errorf("unsupported")
}
func (s *stub) UpgradeResourceIdentity(_ context.Context, r *tfprotov6.UpgradeResourceIdentityRequest) (*tfprotov6.UpgradeResourceIdentityResponse, error) {
	is := s.identities.IdentitySchemas[r.TypeName]
	v, err := r.RawIdentity.UnmarshalWithOpts(is.ValueType(), tfprotov6.UnmarshalOpts{})
	if err != nil {
		return &tfprotov6.UpgradeResourceIdentityResponse{Diagnostics: diag(err)}, nil
	}
	dv, _ := tfprotov6.NewDynamicValue(is.ValueType(), v)
	return &tfprotov6.UpgradeResourceIdentityResponse{UpgradedIdentity: &tfprotov6.ResourceIdentityData{IdentityData: &dv}}, nil
}
func (s *stub) GenerateResourceConfig(context.Context, *tfprotov6.GenerateResourceConfigRequest) (*tfprotov6.GenerateResourceConfigResponse, error) {
	return nil, fmt.Errorf("unsupported")
}
func (s *stub) ValidateDataResourceConfig(context.Context, *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	return &tfprotov6.ValidateDataResourceConfigResponse{}, nil
}
func (s *stub) ReadDataSource(context.Context, *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	return nil, fmt.Errorf("unsupported")
}
func (s *stub) CallFunction(context.Context, *tfprotov6.CallFunctionRequest) (*tfprotov6.CallFunctionResponse, error) {
	return nil, fmt.Errorf("unsupported")
}
func (s *stub) GetFunctions(context.Context, *tfprotov6.GetFunctionsRequest) (*tfprotov6.GetFunctionsResponse, error) {
	return &tfprotov6.GetFunctionsResponse{}, nil
}
func (s *stub) ValidateEphemeralResourceConfig(context.Context, *tfprotov6.ValidateEphemeralResourceConfigRequest) (*tfprotov6.ValidateEphemeralResourceConfigResponse, error) {
	return &tfprotov6.ValidateEphemeralResourceConfigResponse{}, nil
}
func (s *stub) OpenEphemeralResource(context.Context, *tfprotov6.OpenEphemeralResourceRequest) (*tfprotov6.OpenEphemeralResourceResponse, error) {
	return nil, fmt.Errorf("unsupported")
}
func (s *stub) RenewEphemeralResource(context.Context, *tfprotov6.RenewEphemeralResourceRequest) (*tfprotov6.RenewEphemeralResourceResponse, error) {
	return nil, fmt.Errorf("unsupported")
}
func (s *stub) CloseEphemeralResource(context.Context, *tfprotov6.CloseEphemeralResourceRequest) (*tfprotov6.CloseEphemeralResourceResponse, error) {
	return nil, fmt.Errorf("unsupported")
}

// The values the Host gives a new resource, filled in locally, in our provider's shapes.
func (s *stub) create(typeName string, typ tftypes.Type, planned tftypes.Value) (*tfprotov6.ApplyResourceChangeResponse, error) {
	var attrs map[string]tftypes.Value
	planned.As(&attrs)
	ot := typ.(tftypes.Object)
	raw := make([]byte, 12)
	rand.Read(raw)
	uid := "res_" + hex.EncodeToString(raw)
	var space, name string
	attrs["space"].As(&space)
	attrs["name"].As(&name)
	str := func(v any) tftypes.Value { return tftypes.NewValue(tftypes.String, v) }
	set := func(k string, v any) {
		if t, ok := ot.AttributeTypes[k]; ok {
			attrs[k] = tftypes.NewValue(t, v)
		}
	}
	set("id", space+"/"+s.formRef["api_version"]+"/"+s.formRef["kind"]+"/"+uid)
	set("uid", uid)
	set("generation", "1")
	set("revision", "1")
	set("ready", true)
	set("outputs_json", "{}")
	set("pending_operation", nil)
	if !attrs["mode"].IsKnown() {
		set("mode", "safe")
	}
	// Our state keeps the conditions as one JSON string; the 'conditions as a list' variant as
	// the first release did.
	set("conditions_json", `[{"hostReason":null,"lastTransitionTime":"`+time.Now().UTC().Format(time.RFC3339)+`","message":null,"reason":"Available","status":"True","type":"Ready"}]`)
	if t, ok := ot.AttributeTypes["conditions"]; ok {
		ct := t.(tftypes.List).ElementType.(tftypes.Object)
		cond := tftypes.NewValue(ct, map[string]tftypes.Value{"type": str("Ready"), "status": str("True"), "reason": str("Available"), "message": str(nil), "host_reason": str(nil), "last_transition_time": str(time.Now().UTC().Format(time.RFC3339))})
		attrs["conditions"] = tftypes.NewValue(t, []tftypes.Value{cond})
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
	if err != nil {
		return &tfprotov6.ApplyResourceChangeResponse{Diagnostics: diag(err)}, nil
	}
	resp := &tfprotov6.ApplyResourceChangeResponse{NewState: &dv}
	if is, ok := s.identities.IdentitySchemas[typeName]; ok {
		it := is.ValueType()
		idv, _ := tfprotov6.NewDynamicValue(it, tftypes.NewValue(it, map[string]tftypes.Value{"api_version": str(s.formRef["api_version"]), "kind": str(s.formRef["kind"]), "name": str(name), "space": str(space)}))
		resp.NewIdentity = &tfprotov6.ResourceIdentityData{IdentityData: &idv}
	}
	return resp, nil
}

func (s *stub) formRefValue(t tftypes.Type) tftypes.Value {
	vals := map[string]tftypes.Value{}
	for k := range t.(tftypes.Object).AttributeTypes {
		vals[k] = tftypes.NewValue(tftypes.String, s.formRef[k])
	}
	return tftypes.NewValue(t, vals)
}

func main() {
	s := load()
	if err := tf6server.Serve("registry.takoform.dev/takoform/takoform", func() tfprotov6.ProviderServer { return s }); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
