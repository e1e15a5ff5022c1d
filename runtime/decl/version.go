package decl

// Version guard, after protoimpl.EnforceVersion: generated code contains
//
//	const _ = decl.EnforceVersion(GenVersion - decl.MinVersion)
//	const _ = decl.EnforceVersion(decl.MaxVersion - GenVersion)
//
// and a negative constant does not convert to an unsigned type, so code
// generated for another runtime fails to compile.
type EnforceVersion uint

const (
	// GenVersion is the version toolgen writes into generated code. 4:
	// the tools are data (DecodeTools); code of version 3, whose tools
	// are a composite literal, still runs.
	GenVersion = 4
	MinVersion = 3
	MaxVersion = 4
)
