import type { CoreDeps } from '@hub/core-index';
import type { LiveSection } from '../discovery/sections.js';
import { sectionCommon } from '../discovery/sections.js';
import { loadSpacesState, spacesDescriptor, spacesSectionHtml } from './section.js';

/** The spaces section from the current spaces catalog (the empty descriptor while none is published). */
export async function liveSpaces(deps: CoreDeps): Promise<LiveSection> {
  const state = await loadSpacesState(deps.objects);
  if (!state.address || state.spaces.length === 0) return { key: 'none' };
  return {
    key: state.address,
    describe: (self, origin) => spacesDescriptor(state, sectionCommon('spaces', self), origin),
    html: spacesSectionHtml(state),
  };
}
