"""D4's data flow within one body (rules/d4_flow.py): which call's result reaches which call's inputs."""

from pathlib import Path

from extractors.callgraph.build import build_call_graph
from extractors.repository import build_index
from rules import names
from rules.d4_flow import data_flows

SOURCE = '''\
def step(model, batch, buf, cond):
    h = model.encode(batch)
    mask = make_mask(batch)
    h = h.view(4, -1)
    if cond:
        other = model.decode(mask)
    buf.append(h)
    out = model.head(buf)
    for item in other.items():
        total = other.view(item)
    model.log(out)
    late = model.encode(total)
    return out


def main():
    step(None, None, [], True)


if __name__ == "__main__":
    main()
'''


def test_calls_feed_the_calls_their_results_reach(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(SOURCE)
    index = build_index(tmp_path, names.normalise)
    graph = index.analysis(build_call_graph)
    flows = index.analysis(data_flows)
    sites = {(s.line, s.target.rsplit(".", 1)[-1]): s for s in graph.callees_in_order("train.step")}
    encode, mask, view, decode = sites[(2, "encode")], sites[(3, "make_mask")], sites[(4, "view")], sites[(6, "decode")]
    head, log, late = sites[(8, "head")], sites[(11, "log")], sites[(12, "encode")]
    assert flows.feeds(encode, view)  # h = h.view(...): the receiver holds encode's result
    assert flows.feeds(view, head)  # through buf.append(h): a mutating method takes its argument in
    assert flows.feeds(encode, head) and flows.feeds(head, log)
    assert not flows.feeds(mask, view)  # the mask goes elsewhere
    assert flows.feeds(mask, decode) and flows.feeds(decode, late)  # an if arm and a loop, read in source order
    assert not flows.feeds(view, encode)  # only forward, as written
    assert not flows.feeds(encode, mask)  # both read batch: reading the same input is no flow
    assert not flows.feeds(log, late)  # model.log(out) fills nothing: only a mutating method (append) does
