"""Executes examples/notebook.ipynb headless (ctest python.notebook) and checks that the pictures
it draws are the ones docs/python.md shows (docs/python-*.png, byte for byte: the simulations
are deterministic and matplotlib writes no timestamp). SCHEDSIM_UPDATE_GOLDEN=1 copies them."""
import filecmp
import os
import shutil
import subprocess
import sys


def main():
    notebook, out_dir, docs_dir = sys.argv[1:4]
    os.makedirs(out_dir, exist_ok=True)
    env = dict(os.environ, SCHEDSIM_NOTEBOOK_FIGURES=os.path.abspath(out_dir))
    subprocess.run([sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute",
                    "--ExecutePreprocessor.timeout=600", "--ExecutePreprocessor.kernel_name=python3",
                    "--output-dir", out_dir, notebook], check=True, env=env)
    drawn = sorted(f for f in os.listdir(out_dir) if f.startswith("python-") and f.endswith(".png"))
    shown = sorted(f for f in os.listdir(docs_dir) if f.startswith("python-") and f.endswith(".png"))
    if os.environ.get("SCHEDSIM_UPDATE_GOLDEN") == "1":
        for f in shown:
            if f not in drawn:
                os.remove(os.path.join(docs_dir, f))
        for f in drawn:
            shutil.copyfile(os.path.join(out_dir, f), os.path.join(docs_dir, f))
        print(f"notebook_check: {len(drawn)} picture(s) copied to {docs_dir}")
        return 0
    bad = [f for f in sorted(set(drawn) | set(shown))
           if f not in drawn or f not in shown or not filecmp.cmp(os.path.join(out_dir, f), os.path.join(docs_dir, f),
                                                                   shallow=False)]
    if bad:
        print(f"notebook_check: {', '.join(bad)} in {docs_dir} differ from what the notebook draws now "
              f"({out_dir}); look at them, then update with SCHEDSIM_UPDATE_GOLDEN=1 ctest -R python.notebook",
              file=sys.stderr)
        return 1
    print(f"notebook_check: the notebook ran; its {len(drawn)} picture(s) are the ones docs/python.md shows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
