# family: package-install
# set: runtime-42
# expect: torchcodec|soundfile|librosa|install
# note: a datasets Audio column decoded without the audio decoding package
import io
import wave
from datasets import Audio, Dataset

buf = io.BytesIO()
with wave.open(buf, "wb") as w:
    w.setnchannels(1); w.setsampwidth(2); w.setframerate(16000); w.writeframes(b"\x00\x00" * 1600)  # noqa: E702
ds = Dataset.from_dict({"audio": [{"bytes": buf.getvalue(), "path": "a.wav"}]}).cast_column("audio", Audio())
print(ds[0]["audio"])
