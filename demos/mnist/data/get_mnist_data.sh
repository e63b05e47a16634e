#!/usr/bin/env sh
# Downloads the four MNIST idx files next to this script and unzips them.
# Usage: sh demos/mnist/data/get_mnist_data.sh
set -e
DIR="$(cd "$(dirname "$0")" && pwd -P)"
cd "$DIR"

MIRRORS="https://ossci-datasets.s3.amazonaws.com/mnist
https://storage.googleapis.com/cvdf-datasets/mnist
http://yann.lecun.com/exdb/mnist"

fetch() {  # fetch URL OUTPUT
    if command -v wget >/dev/null 2>&1; then
        wget -q -O "$2" "$1"
    else
        curl -fsSL -o "$2" "$1"
    fi
}

for name in train-images-idx3-ubyte train-labels-idx1-ubyte \
            t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
    if [ -e "$name" ]; then
        echo "$name: already there"
        continue
    fi
    ok=0
    for base in $MIRRORS; do
        echo "Downloading $base/$name.gz"
        if fetch "$base/$name.gz" "$name.gz.part"; then
            mv "$name.gz.part" "$name.gz"
            ok=1
            break
        fi
        rm -f "$name.gz.part"
    done
    if [ "$ok" != 1 ]; then
        echo "could not download $name.gz" >&2
        exit 1
    fi
    gunzip -f "$name.gz"
done
echo "MNIST files are in $DIR"
