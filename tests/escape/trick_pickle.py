# escape: a pickle that calls os.system
# expect status ok
# expect stdout_is blocked\n
import pickle
try:
    pickle.loads(b"cos\nsystem\n(S'id'\ntR.")
    print('LEAK')
except AttributeError:
    print('blocked')
