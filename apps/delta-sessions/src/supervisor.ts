// The detached session process of interpreter sessions, bundled next to cli.js: the inlined
// @delta/sessions code looks for supervisor.js beside itself.
import '@delta/sessions/supervisor';
