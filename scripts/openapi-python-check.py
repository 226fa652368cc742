#!/usr/bin/env python3
"""The served OpenAPI document against the server, with tools nobody here wrote.

hypothesis generates request bodies from the document's own schemas (its patterns read by
Python's re, as schemathesis reads them), jsonschema (Draft 2020-12) checks each body against the
document and every answer against the schema the document declares for its status. Both ways:
- a body the document accepts may be refused only with a code the operation's description names
  (rules no schema keyword can say); /schedule numbers none of its refusals (Code null), and its
  description names them in words, so there only the envelope is checked;
- a body the document refuses (a generated body with one thing changed: a field dropped, added,
  of another type, too long, blank, with a newline or a bidi override) must be refused.

Usage: openapi-python-check.py BASE_URL TOKEN [EXAMPLES_PER_OPERATION]
Run by `npm run test:interop` against a fresh `examctl local serve`. Exit 1 on any disagreement.
"""
import json
import re
import sys
import urllib.error
import urllib.request

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

BASE, TOKEN = sys.argv[1].rstrip('/'), sys.argv[2]
EXAMPLES = int(sys.argv[3]) if len(sys.argv) > 3 else 150
API = BASE + '/api/v1/integrations'


def call(method, path, body=None):
    data = None if body is None else json.dumps(body).encode('utf-8')
    headers = {'Authorization': 'EAPI ' + TOKEN}
    if data is not None:
        headers['Content-Type'] = 'application/json'
    request = urllib.request.Request(API + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read().decode('utf-8'))
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read().decode('utf-8'))


status, document = call('GET', '/openapi.json')
assert status == 200, f'GET /openapi.json answered {status}'
components = document['components']['schemas']


def validator(ref):
    # The root carries the components, so the document's own #/components/... references resolve.
    return Draft202012Validator({'$ref': ref, 'components': document['components']})


def resolve(ref):
    return components[ref.rsplit('/', 1)[1]]


def strategy(schema):
    """Values a schema accepts, built from its keywords (the subset the document uses)."""
    if '$ref' in schema:
        return strategy(resolve(schema['$ref']))
    if 'anyOf' in schema:
        return st.one_of([strategy(option) for option in schema['anyOf']])
    if 'const' in schema:
        return st.just(schema['const'])
    if 'enum' in schema:
        return st.sampled_from(schema['enum'])
    kind = schema.get('type')
    if kind == 'null':
        return st.none()
    if kind == 'boolean':
        return st.booleans()
    if kind == 'integer':
        return st.integers(min_value=schema.get('minimum'), max_value=schema.get('maximum'))
    if kind == 'number':
        return st.floats(min_value=schema.get('minimum'), max_value=schema.get('maximum'), allow_nan=False, allow_infinity=False)
    if kind == 'string':
        low, high = schema.get('minLength', 0), schema.get('maxLength')
        if 'pattern' in schema:
            text = st.from_regex(schema['pattern'])
        else:
            text = st.text(min_size=low, max_size=min(high if high is not None else 40, 40))
        return text.filter(lambda s: low <= len(s) and (high is None or len(s) <= high))
    if kind == 'array':
        return st.lists(strategy(schema.get('items', {})), min_size=schema.get('minItems', 0), max_size=min(schema.get('maxItems', 4), 4))
    if kind == 'object':
        properties = schema.get('properties', {})
        required = set(schema.get('required', []))
        return st.fixed_dictionaries(
            {name: strategy(properties[name]) for name in sorted(required)},
            optional={name: strategy(sub) for name, sub in sorted(properties.items()) if name not in required},
        )
    return st.none()


problems = []
counts = {}

# What the demo world has: half the bodies point at it, so that acceptance (and, for the changed
# bodies, a refusal for the one change rather than for an unknown role) is exercised too.
WORLD = {
    'roles': ['Candidate', 'Author', 'candidate'],
    'hierarchies': ['H-NORTH', 'H-SOUTH', 'H-NORTH-LAB'],
    'assessments': ['A-MATH-1', 'A-PHYS-2'],
    'templates': ['PTSTD', 'PTSTRICT'],
    'taxonomies': ['TX-BLOOM', 'TX-SUBJECT'],
    'repositories': ['LO-CORE'],
}
serial = iter(range(10**9))


def grounded(path, body):
    n = next(serial)
    pick = lambda name, k=0: WORLD[name][(n + k) % len(WORLD[name])]
    body = json.loads(json.dumps(body))
    if path == '/user':
        body['Role'] = pick('roles')
        body['ExternalId'] = f'u-{n}'
        body.pop('UserName', None)
        body.pop('SynchronizationKey', None)
        if isinstance(body.get('Hierarchies'), list):
            body['Hierarchies'] = [{'ExternalId': h} for h in dict.fromkeys(pick('hierarchies', k) for k in range(len(body['Hierarchies'])))]
    elif path == '/schedule':
        schedule = body['Schedule']
        schedule.update(AssessmentExtId=pick('assessments'), GroupExtId=pick('hierarchies'), StartDateTime='2027-03-01T09:00:00Z')
        for name in ('EndDateTime', 'Owner', 'ScheduleGroupExtId', 'ScheduleExtId'):
            schedule.pop(name, None)
        if 'ProctoringServiceTemplateExternalId' in schedule:
            schedule['ProctoringServiceTemplateExternalId'] = pick('templates')
        body['Workflow'] = 'DEFAULT'
        body['Candidates'] = [
            {**{k: v for k, v in c.items() if k not in ('AttemptExtId', 'ReasonableAdjustmentPercentage')}, 'CandidateExtId': f'c-{n}-{k}'}
            for k, c in enumerate(body['Candidates'])
        ]
    elif path == '/collections':
        body.pop('Owner', None)
        body.pop('ExternalId', None)
        body.pop('LoRepositoryExternalIds', None)
        body['Taxonomies'] = [{'ExternalId': pick('taxonomies')}]
        body['ObjectiveRepositories'] = [{'ExternalId': pick('repositories')}]
    return body


def bodies(path, schema):
    return st.tuples(strategy(schema), st.booleans()).map(lambda pair: grounded(path, pair[0]) if pair[1] else pair[0])


def check_operation(method, path, operation):
    body_ref = operation['requestBody']['content']['application/json']['schema']['$ref']
    request_validator = validator(body_ref)
    named_codes = {int(code) for code in re.findall(r'\b\d{3,4}\b', operation.get('description', ''))}
    numbered = path != '/schedule'

    @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(bodies(path, resolve(body_ref)))
    def one(body):
        errors = list(request_validator.iter_errors(body))
        if errors:
            # The generator is not the judge: a body the document refuses is not a case for this check.
            counts[path]['skipped'] += 1
            return
        counts[path]['sent'] += 1
        status, answer = call(method, path.replace('{externalId}', 'S-FUTURE'), body)
        declared = operation['responses'].get(str(status))
        if declared is None:
            problems.append(f'{method} {path}: status {status} is not declared; body {json.dumps(body)[:300]}')
            return
        answer_errors = list(validator(declared['content']['application/json']['schema']['$ref']).iter_errors(answer))
        if answer_errors:
            problems.append(f'{method} {path}: the {status} answer does not fit its schema ({answer_errors[0].message[:200]}); body {json.dumps(body)[:300]}')
            return
        if status >= 500:
            problems.append(f'{method} {path}: {status} for a body the document accepts: {json.dumps(body)[:300]}')
            return
        if answer.get('Success'):
            counts[path]['ok'] += 1
            return
        counts[path]['refused'] += 1
        if numbered:
            unnamed = [e for e in answer.get('Errors') or [] if e.get('Code') not in named_codes]
            if unnamed:
                problems.append(
                    f'{method} {path}: the document accepts this body, the server refuses it with {[(e.get("Code"), e.get("Field"), e.get("Message")) for e in unnamed]}, '
                    f'a code the description does not name: {json.dumps(body, ensure_ascii=True)[:400]}'
                )

    counts[path] = {'sent': 0, 'skipped': 0, 'ok': 0, 'refused': 0, 'invalid sent': 0, 'invalid refused': 0}
    one()

    @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.tuples(bodies(path, resolve(body_ref)), st.data()))
    def changed(case):
        body, data = case
        body = mutate(body, data)
        if not list(request_validator.iter_errors(body)):
            return
        counts[path]['invalid sent'] += 1
        status, answer = call(method, path.replace('{externalId}', 'S-FUTURE'), body)
        if str(status) not in operation['responses']:
            problems.append(f'{method} {path}: status {status} is not declared; body {json.dumps(body)[:300]}')
        elif status == 200 and answer.get('Success') and not (answer.get('Content') or {}).get('GroupErrors'):
            problems.append(f'{method} {path}: the document refuses this body, the server accepts it: {json.dumps(body, ensure_ascii=True)[:400]}')
        else:
            counts[path]['invalid refused'] += 1

    changed()


ODD_VALUES = [None, 0, -1, 1.5, True, '', ' ', '\n', 'a\nb', 'x\u202ey', 'x' * 600, [], {}, ['x'], {'x': 1}]


def mutate(body, data):
    """body with one thing changed somewhere inside it (the document is the judge of whether that made it invalid)."""
    if isinstance(body, dict) and body and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(body)))
        inner = body[key]
        if isinstance(inner, (dict, list)) and inner and data.draw(st.booleans()):
            return {**body, key: mutate(inner, data)}
        how = data.draw(st.sampled_from(['drop', 'replace', 'replace', 'add']))
        if how == 'drop':
            return {k: v for k, v in body.items() if k != key}
        if how == 'add':
            return {**body, 'Unknown' + key: 1}
        return {**body, key: data.draw(st.sampled_from(ODD_VALUES))}
    if isinstance(body, list) and body:
        index = data.draw(st.integers(min_value=0, max_value=len(body) - 1))
        copy = list(body)
        copy[index] = mutate(copy[index], data) if isinstance(copy[index], (dict, list)) and copy[index] else data.draw(st.sampled_from(ODD_VALUES))
        return copy
    return data.draw(st.sampled_from(ODD_VALUES + [{'Unknown': 1}]))


for path, operations in document['paths'].items():
    for method, operation in operations.items():
        if 'requestBody' in operation:
            check_operation(method.upper(), path, operation)

for path, c in counts.items():
    print(
        f'{path}: {c["sent"]} bodies the document accepts sent ({c["ok"]} ok, {c["refused"]} refused for rules beyond the schema; '
        f'{c["skipped"]} generated but not valid, skipped); {c["invalid sent"]} bodies it refuses sent ({c["invalid refused"]} refused)'
    )
for problem in problems[:20]:
    print('DISAGREEMENT ' + problem)
print(f'openapi-python-check: {len(problems)} disagreement(s)')
sys.exit(1 if problems else 0)
