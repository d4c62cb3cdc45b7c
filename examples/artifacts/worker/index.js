import { route } from './lib/router.js';

export default {
  fetch(request) {
    return route(request);
  },
};
