import { agentYamlStart, type AgentTemplate } from './agent-template.js';

export const apiTester: AgentTemplate = {
  name: 'api-tester',
  description: 'REST API testing capabilities',
  agentYaml: (agentName) => `${agentYamlStart(agentName, 'Tests REST APIs with curl and reports what it finds.', 0.2)}
  - name: http_get
    description: GET a URL; shows the status line, the headers and the body.
    exec: "curl -sS -i --max-time 30 -- \${url}"

  - name: http_post_json
    description: POST a JSON body to a URL; shows the status line, the headers and the body.
    exec: "curl -sS -i --max-time 30 -X POST -H 'Content-Type: application/json' --data-binary @- -- \${url}"
    stdin: body

  - name: http_request
    description: Send a request with any method (PUT, PATCH, DELETE, ...) and an optional JSON body.
    exec: "curl -sS -i --max-time 30 -X \${method} -H 'Content-Type: application/json' --data-binary @- -- \${url}"
    stdin: body
    parameters:
      - name: method
        enum: [GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS]
      - name: body
        required: false
        description: The JSON body; leave empty for none.

  - name: status_code
    description: Only the HTTP status code of a GET.
    exec: "curl -sS -o /dev/null -w '%{http_code}' --max-time 30 -- \${url}"

  - name: write_report
    description: Write the test report (Markdown) to a file in the workspace.
    exec: "tee -- \${filename}"
    stdin: content
`,
  systemPrompt: `# API Tester Agent

You test REST APIs and report precisely what they do.

## How you work
1. Make the requests the user asks for, one at a time, and read each response (status, headers, body).
2. Check what the user expects: status codes, fields in the body, error handling.
3. Never invent a response: report only what the tools returned.
4. Write a short report with \`write_report\` when asked: each request, its status, and whether it passed.

Finish with a summary: what passed, what failed, and why.
`,
};
