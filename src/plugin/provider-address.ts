// The provider's registry address, in its own module so that the serving path can name it
// without loading the install command (which spawns processes, see install.ts).
export const PROVIDER_HOSTNAME = 'registry.takoform.dev';
export const PROVIDER_NAMESPACE = 'takoform';
export const PROVIDER_TYPE = 'takoform';
export const PROVIDER_SOURCE = `${PROVIDER_HOSTNAME}/${PROVIDER_NAMESPACE}/${PROVIDER_TYPE}`;
