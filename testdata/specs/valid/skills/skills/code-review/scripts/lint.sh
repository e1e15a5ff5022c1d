#!/bin/sh
echo lint "$@"
