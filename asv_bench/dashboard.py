"""Publish the asv results as a site that works offline (the step asv_bench/publish.sh, the
workflow and tests/test_dashboard.py share).

asv 0.6's index.html loads jQuery, Flot, Bootstrap and three small plugins from CDNs; the page
then shows nothing without internet. `make_offline` copies the same libraries (vendored in
asv_bench/vendor/, see its README) next to the page and points the page at them, and fails when
the page still names a remote script or stylesheet (a newer asv adding one).

    python asv_bench/dashboard.py publish [--results-dir DIR] [--html-dir DIR]
    python asv_bench/dashboard.py offline HTML_DIR
"""

import argparse
import base64
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONF = ROOT / "asv.conf.json"
VENDOR = Path(__file__).resolve().parent / "vendor"

# Each CDN address asv 0.6's index.html uses -> the vendored file serving it (the copies asv 0.5
# shipped; Bootstrap is 3.1.0 there where the CDN line says 3.1.1, a patch release apart).
CDN_TO_VENDOR = {
    "https://code.jquery.com/jquery-3.3.1.min.js": "jquery-3.3.1.min.js",
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.min.js": (
        "jquery.flot-0.8.3.min.js"
    ),
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.time.min.js": (
        "jquery.flot-0.8.3.time.min.js"
    ),
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.selection.min.js": (
        "jquery.flot-0.8.3.selection.min.js"
    ),
    "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.categories.min.js": (
        "jquery.flot-0.8.3.categories.min.js"
    ),
    "https://cdn.jsdelivr.net/npm/flot-orderbars@1.0.0/js/jquery.flot.orderBars.js": (
        "jquery.flot.orderBars.js"
    ),
    "https://cdnjs.cloudflare.com/ajax/libs/stupidtable/1.0.1/stupidtable.min.js": "stupidtable.js",
    "https://cdnjs.cloudflare.com/ajax/libs/blueimp-md5/2.19.0/js/md5.min.js": "md5.js",
    "https://cdn.jsdelivr.net/npm/bootstrap@3.1.1/dist/js/bootstrap.min.js": (
        "bootstrap-3.1.0.min.js"
    ),
    "https://cdn.jsdelivr.net/npm/bootstrap@3.1.1/dist/css/bootstrap.min.css": (
        "bootstrap-3.1.0.min.css"
    ),
}

# src= or href= of a <script> or <link> tag naming an http(s) address (links in <a> are fine).
_REMOTE_ASSET = re.compile(r"<(?:script|link)\b[^>]*\b(?:src|href)=[\"'](https?://[^\"']+)", re.I)


def remote_assets(html):
    """The http(s) addresses `html` loads scripts or stylesheets from."""
    return _REMOTE_ASSET.findall(html)


def _integrity(path):
    """Subresource-integrity value of a file (sha384, as browsers check it)."""
    return "sha384-" + base64.b64encode(hashlib.sha384(path.read_bytes()).digest()).decode()


def point_at_vendor(html):
    """`html` with every CDN address of CDN_TO_VENDOR replaced by its vendored copy. The tags'
    integrity attributes name the CDN's bytes, and most vendored copies are other builds of the
    same version (the browser would block them): each becomes the vendored file's own hash."""
    for url, name in CDN_TO_VENDOR.items():
        tag_attrs = re.compile(r'(src|href)="' + re.escape(url) + r'"(\s+integrity="[^"]*")?')
        local = f'vendor/{name}" integrity="{_integrity(VENDOR / name)}"'
        html = tag_attrs.sub(lambda m, local=local: f'{m.group(1)}="{local}', html)
    return html


def make_offline(html_dir):
    """Serve every library of the site in `html_dir` from its vendor/ folder; raise RuntimeError
    naming the page and address of any remote script or stylesheet left."""
    html_dir = Path(html_dir)
    target = html_dir / "vendor"
    target.mkdir(exist_ok=True)
    for name in set(CDN_TO_VENDOR.values()):
        shutil.copy2(VENDOR / name, target / name)
    left = []
    for page in html_dir.glob("*.html"):
        text = point_at_vendor(page.read_text(encoding="utf-8"))
        page.write_text(text, encoding="utf-8")
        left += [f"{page.name}: {url}" for url in remote_assets(text)]
    if left:
        raise RuntimeError(
            "the site still loads from the network (add these to CDN_TO_VENDOR and vendor/): "
            + ", ".join(left)
        )


def _config(results_dir, html_dir):
    """asv.conf.json with absolute paths and the given results and html directories."""
    from asv.util import load_json

    conf = load_json(str(CONF), js_comments=True)
    conf["repo"] = str(ROOT)
    conf["benchmark_dir"] = str(ROOT / conf["benchmark_dir"])
    conf["env_dir"] = str(ROOT / conf["env_dir"])
    conf["results_dir"] = str(Path(results_dir or ROOT / conf["results_dir"]).resolve())
    conf["html_dir"] = str(Path(html_dir or ROOT / conf["html_dir"]).resolve())
    return conf


def publish(results_dir=None, html_dir=None):
    """`asv publish` of `results_dir` (default: the committed asv_bench/results) into `html_dir`
    (default: asv.conf.json's), made to work offline. Returns the html directory."""
    conf = _config(results_dir, html_dir)
    with tempfile.TemporaryDirectory() as tmp:
        conf_path = Path(tmp) / "asv.conf.json"
        conf_path.write_text(json.dumps(conf), encoding="utf-8")
        # --no-pull: publish what this clone has, never fetch (CI and offline use)
        subprocess.run(
            [sys.executable, "-m", "asv", "publish", "--no-pull", "--config", str(conf_path)],
            cwd=ROOT,
            check=True,
        )
    make_offline(conf["html_dir"])
    return Path(conf["html_dir"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    pub = sub.add_parser("publish", help="asv publish, then make the site work offline")
    pub.add_argument("--results-dir", help="default: asv.conf.json's results_dir")
    pub.add_argument("--html-dir", help="default: asv.conf.json's html_dir")
    off = sub.add_parser("offline", help="make an already published site work offline")
    off.add_argument("html_dir")
    args = parser.parse_args(argv)
    if args.command == "publish":
        print(f"site: {publish(args.results_dir, args.html_dir)}")
    else:
        make_offline(args.html_dir)


if __name__ == "__main__":
    main()
