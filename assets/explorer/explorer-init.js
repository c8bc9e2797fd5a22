// The API explorer's start-up (GET /swaggerui/): Swagger UI over the service's own OpenAPI document. A file
// of its own, not an inline script, so that the page's Content-Security-Policy allows scripts from the
// service only (src/console/page-headers.ts). Authorizations are not kept in localStorage
// (persistAuthorization off): a pasted token, the admin token included, is gone when the tab closes.
window.addEventListener('load', () => {
  window.ui = SwaggerUIBundle({
    url: '/api/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    // Without the standalone layout's top bar: its logo carries an inline <style>, which the policy refuses.
    layout: 'BaseLayout',
    persistAuthorization: false,
    displayRequestDuration: true,
    // No badge from the public validator service: nothing is loaded from outside.
    validatorUrl: null,
  });
});
