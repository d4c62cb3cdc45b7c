export function route(request) {
  const { pathname } = new URL(request.url);
  return new Response(pathname === '/' ? 'hello from the worker bundle' : 'not found', { status: pathname === '/' ? 200 : 404 });
}
