// The cosign command that build-cosign.sh builds: cosign's own cmd/cosign/main.go (v2.6.5) without its blank imports
// of the clouds' KMS clients (AWS, Azure, GCP, Vault) and its rewriting of deprecated single-dash flags. The project
// signs with a key file (make test, make publish SIGN_KEY=cosign.key) or keyless (the release workflow), never with a
// cloud KMS key, and those four clients are about half of what a cold build of cosign compiles. A KMS key reference
// (awskms://...) fails here with cosign's own error; COSIGN=<a cosign of your own> make publish takes one.
package main

import (
	"errors"
	"log"
	"os"

	"github.com/sigstore/cosign/v2/cmd/cosign/cli"
	cosignError "github.com/sigstore/cosign/v2/cmd/cosign/errors"
)

func main() {
	if err := cli.New().Execute(); err != nil {
		// A CosignError carries the exit code of its kind of failure, as cosign's own main returns it.
		var cosignErr *cosignError.CosignError
		if errors.As(err, &cosignErr) {
			log.Printf("error during command execution: %v", err)
			os.Exit(cosignErr.ExitCode())
		}
		log.Fatalf("error during command execution: %v", err)
	}
}
