# family: training-data
# set: runtime-42
# expect: ExceptionGroup|TextEncodeInput|str|int
# note: asyncio.TaskGroup tokenizing requests concurrently: one request's text is an int (Python 3.11 exception group print)
import asyncio
import _tiny

tok = _tiny.tokenizer()


async def encode(text):
    await asyncio.sleep(0)
    return tok(text)["input_ids"]


async def main():
    async with asyncio.TaskGroup() as tg:
        for text in ["hello world", 1234, "the cat"]:
            tg.create_task(encode(text))


asyncio.run(main())
