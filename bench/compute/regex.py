import re
text = ' '.join('user%d@example%d.com, 2024-%02d-%02d, id=%d;' % (i, i % 7, i % 12 + 1, i % 28 + 1, i * 37)
                for i in range(20_000))
emails = re.findall(r'[\w.]+@[\w.]+\.com', text)
dates = re.findall(r'(\d{4})-(\d\d)-(\d\d)', text)
ids = sum(int(m.group(1)) for m in re.finditer(r'id=(\d+)', text))
result = (len(emails), len(dates), ids)
