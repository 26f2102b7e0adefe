/**
 * The mesh the Resources and Policies views show ('' = all meshes). One choice for both, kept while
 * the app runs: a user working on one mesh keeps seeing it when switching views.
 */
export const meshFilter = $state({ mesh: '' });

/** Whether `item` belongs to the chosen mesh (every item when all meshes are shown). */
export function inChosenMesh(item: { mesh?: string }): boolean {
  return meshFilter.mesh === '' || item.mesh === meshFilter.mesh;
}
