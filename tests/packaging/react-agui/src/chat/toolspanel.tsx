import { errorKind, useToolToggles } from "chat-runtime/react";
import type { ReactNode } from "react";

import { FetchError } from "../auth";
import { ERROR_COPY } from "./errornotice";

/**
 * The tools menu of a thread, or of the new chat (`threadId: null`: the defaults every new thread
 * starts from, carried to the thread at its first run).
 */
export function ToolsPanel(props: ToolsPanel.Props): ReactNode {
	const { tools, activeCount, ready, error, setEnabled } = useToolToggles(
		props.threadId,
	);
	return (
		<details id="tools" open data-ready={ready ? "true" : "false"}>
			<summary>
				Tools <span id="active-count">{activeCount}</span>
			</summary>
			{error && (
				<p
					id="tools-error"
					className="error"
					data-code={error.code}
					data-status={error.status ?? ""}
					data-cause={error.cause instanceof FetchError ? "FetchError" : ""}
				>
					{ERROR_COPY[errorKind(error)]}
				</p>
			)}
			<ul>
				{tools.map((tool) => (
					<li key={tool.name}>
						<label title={tool.description}>
							<input
								type="checkbox"
								data-tool={tool.name}
								data-locked={tool.locked ? "true" : "false"}
								checked={tool.enabled}
								disabled={tool.locked}
								onChange={(e) => setEnabled(tool.name, e.target.checked)}
							/>
							{tool.name}
							{tool.locked && <small> (agent)</small>}
						</label>
					</li>
				))}
			</ul>
		</details>
	);
}

export namespace ToolsPanel {
	export type Props = {
		readonly threadId: string | null;
	};
}
