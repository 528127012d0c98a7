// Interactive API docs over the gateway's own /openapi.json (a static file: the
// Content-Security-Policy allows no inline script).
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    persistAuthorization: false,
  });
});
