package ingest

import "testing"

func TestDetect(t *testing.T) {
	tests := []struct {
		name, file, text string
		want             Detection
	}{
		// By extension.
		{"go ext", "main.go", "anything", Detection{TypeCode, "software.go", "go"}},
		{"tsx ext", "App.tsx", "", Detection{TypeCode, "software.typescript", "typescript"}},
		{"header", "util.h", "", Detection{TypeCode, "software.c", "c"}},
		{"rust ext", "lib.rs", "", Detection{TypeCode, "software.rust", "rust"}},
		{"shell ext", "deploy.sh", "echo hi", Detection{TypeCode, "software.shell", "shell"}},
		{"upper ext", "MAIN.GO", "", Detection{TypeCode, "software.go", "go"}},
		// Code without an extension.
		{"go snippet", "", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tif err != nil {\n\t\tfmt.Println(err)\n\t}\n}\n", Detection{TypeCode, "software.go", "go"}},
		{"python snippet", "", "import os\nfrom typing import List\n\nclass Repo:\n    def __init__(self, path):\n        self.path = path\n\n    def files(self) -> List[str]:\n        return os.listdir(self.path)\n", Detection{TypeCode, "software.python", "python"}},
		{"java snippet", "", "package a.b;\n\nimport java.util.List;\n\npublic class Foo {\n    @Override\n    public String toString() {\n        return \"x\";\n    }\n}\n", Detection{TypeCode, "software.java", "java"}},
		{"rust snippet", "", "use std::io;\n\n#[derive(Debug)]\nstruct P { x: i32 }\n\nfn main() {\n    let mut s = String::new();\n    println!(\"{}\", s);\n}\n", Detection{TypeCode, "software.rust", "rust"}},
		{"typescript snippet", "", "import { x } from './x';\n\nexport interface User {\n  name: string;\n  age: number;\n}\n\nexport const f = (u: User): string => u.name;\n", Detection{TypeCode, "software.typescript", "typescript"}},
		{"php tag", "", "<?php\necho 'hi';\n", Detection{TypeCode, "software.php", "php"}},
		{"python shebang", "tool", "#!/usr/bin/env python3\nprint('x')\n", Detection{TypeCode, "software.python", "python"}},
		{"prose mentioning code", "", "The bug where err != nil was ignored and fmt.Println(x) printed nothing is fixed; the fix took an hour.", Detection{TypeGeneric, "general", ""}},
		{"diary mentioning code", "", "Yesterday I fixed the bug where err != nil was ignored. My reviewer was happy.", Detection{TypeTemporal, "personal", ""}},
		{"markdown with code", "README.md", "# Tool\n\nInstall it:\n\n```go\npackage main\nfunc main() {}\n```\n\nThen run it and enjoy the output of the program.\n", Detection{TypeGeneric, "general", ""}},
		// Temporal.
		{"journal en", "", "2023-05-08 Went hiking with my sister. I was tired.\n\n2023-05-09 I stayed home and read.\n", Detection{TypeTemporal, "personal", ""}},
		{"diario es", "", "8 de mayo de 2023\nHoy fui al médico con mi madre.\n\n9 de mayo de 2023\nMe quedé en casa.\n", Detection{TypeTemporal, "personal", ""}},
		{"chat locomo", "", "1:56 pm on 8 May, 2023\nCaroline: Hey Mel! How are you?\nMelanie: Good! I went to the park.\nCaroline: Nice.\n", Detection{TypeTemporal, "personal", ""}},
		{"changelog", "", "2024-01-10 Released v1.2 with faster search.\n2024-02-01 Released v1.3, fixes the index.\n2024-03-05 Released v1.4.\n", Detection{TypeTemporal, "general", ""}},
		{"dear diary", "", "Dear diary, today I finally finished my thesis and I feel free. My friends took me out.", Detection{TypeTemporal, "personal", ""}},
		// Clinical.
		{"clinical es", "", "Paciente: mujer de 62 años.\nMotivo de consulta: cefalea.\nDiagnóstico: migraña.\nTratamiento: ibuprofeno 600 mg cada 8 horas.\n", Detection{TypeClinical, "medicine.clinical", ""}},
		{"clinical en", "", "Chief complaint: chest pain.\nHPI: 3 days of pain.\nAssessment: hypertension.\nPlan: start lisinopril 10 mg daily; follow-up in 2 weeks.\nAllergies: none.\n", Detection{TypeClinical, "medicine.clinical", ""}},
		// Process.
		{"recipe en", "", "Pancakes\n\nIngredients:\n- 2 eggs\n- 1 cup flour\n- 1 tbsp sugar\n\nSteps:\n1. Preheat the pan.\n2. Mix and stir.\n3. Cook 2 minutes per side.\n", Detection{TypeProcess, "process.cooking", ""}},
		{"receta es", "", "Tortilla de patatas\n\nIngredientes:\n- 4 huevos\n- 3 patatas\n- aceite y sal\n\nPreparación:\n1. Pelar y picar.\n2. Freír en aceite.\n3. Batir los huevos y mezclar.\n", Detection{TypeProcess, "process.cooking", ""}},
		{"runbook en", "", "Runbook: API outage\n\n1. Check the dashboard and the alert.\n2. kubectl rollout undo deploy/api\n3. Verify and escalate to on-call if it persists.\n", Detection{TypeProcess, "process.runbook", ""}},
		{"runbook es", "", "Procedimiento de despliegue\n\n1. Verificar que el servicio responde.\n2. Desplegar con docker compose up -d.\n3. Si falla, revertir y avisar a la guardia.\n$ docker compose logs\n", Detection{TypeProcess, "process.runbook", ""}},
		// Narrative.
		{"novel en", "", "Chapter 1\n\nThe rain had not stopped for three days. She looked at the window.\n\n“We should leave,” he said.\n\n“Not yet,” she replied.\n", Detection{TypeNarrative, "literature", ""}},
		{"novela es", "", "Capítulo 3\n\nLa casa estaba vacía cuando llegaron. Nadie respondió.\n\n—¿Hay alguien? —preguntó ella.\n\n—Nadie —dijo él.\n", Detection{TypeNarrative, "literature", ""}},
		// Generic.
		{"preference", "", "Prefer tabs for Go code and two spaces for YAML in this project.", Detection{TypeGeneric, "general", ""}},
		{"personal fact es", "", "Mi hermana vive en Valencia y me visita cada verano con mis sobrinos.", Detection{TypeGeneric, "personal", ""}},
		{"empty", "", "", Detection{TypeGeneric, "general", ""}},
	}
	for _, tt := range tests {
		if got := Detect(tt.file, tt.text); got != tt.want {
			t.Errorf("%s: Detect = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
