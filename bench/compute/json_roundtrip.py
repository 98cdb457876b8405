import json
doc = {'users': [{'id': i, 'name': 'user%d' % i, 'tags': ['a', 'b', 'c'], 'score': i * 1.5,
                  'active': i % 2 == 0, 'meta': {'x': None, 'y': [1, 2, 3]}} for i in range(2000)]}
for _ in range(10):
    text = json.dumps(doc)
    doc = json.loads(text)
result = len(text)
